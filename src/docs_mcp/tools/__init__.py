"""The five tools as library calls, each within its budget."""
