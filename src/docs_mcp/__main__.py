from docs_mcp.cli.main import main

main()
