#!/bin/sh
# The image's Python layer: docslice and its PostgreSQL client installed from this checkout (never from a
# package index by name) into a virtual environment, the semantic model (inside the wordllama wheel) loaded
# once so that a broken install fails the build. deploy/Dockerfile runs it; tests/integration/test_deploy.py
# runs it too, so the file cannot rot. Usage, from the repository's root: sh deploy/build-venv.sh TARGET
set -eu
target=${1:?usage: sh deploy/build-venv.sh TARGET_DIR}
python3 -m venv "$target"
"$target/bin/python" -m pip install --disable-pip-version-check --quiet ".[postgres]"
HF_HUB_OFFLINE=1 "$target/bin/python" -c '
from docs_mcp.search.semantic.embedders import embedder
model = embedder("auto")
assert model is not None, "the semantic model is not installed"
print("semantic model:", model.name, model.embed(["docslice"]).shape)
'
"$target/bin/docslice" --version
