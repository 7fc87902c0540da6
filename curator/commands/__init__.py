"""The command line: one module per subcommand, loaded lazily by `cli.py`.

Each parses options, calls library functions (`linting`, `session`, `fixes`, …) and
turns their results into output and an exit code: 0 clean, 1 findings, 2 user error.
The only stage that may import every other; nothing imports it but `cli`.
"""
