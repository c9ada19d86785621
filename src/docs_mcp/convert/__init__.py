"""Convert stage: HTML or Markdown to a Document (parse, strip noise, sections, entries, markdown)."""
