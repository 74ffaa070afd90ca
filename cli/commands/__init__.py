"""The `ark` commands: one module a command group, each registered in cli/app.py.

Flags come from cli/flags; no command module imports another (an import contract).
"""
