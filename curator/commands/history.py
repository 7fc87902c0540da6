"""`curator history`: build or bring up to date the history index behind CUR201/CUR202.

`curator lint` builds the index when it needs it; this command does it ahead of time
(CI, a new clone) and is what the session-start hook starts in the background when the
index is missing or far behind HEAD. It prints what the index holds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from curator.commands.common import EXIT_CLEAN, EXIT_ERROR, config_from, config_option, user_errors
from curator.commands.terminal import echo


@click.command()
@click.argument("repos", nargs=-1, type=click.Path(path_type=Path, file_okay=False, exists=True))
@config_option
@click.option("--quiet", "-q", is_flag=True, help="Print nothing (the hook's background build).")
@user_errors
def history(repos: tuple[Path, ...], config_path: Path | None, quiet: bool) -> None:
    """Index the git history of REPOS (default: the repository the current project's
    store talks about): every path they ever tracked and every identifier their code lost.
    """
    from curator.findings.onlooker import cache_dir
    from curator.git import unavailable
    from curator.linting import resolve_targets
    from curator.repo.history import open_index

    cwd = Path.cwd()
    config = config_from(config_path)
    roots = [r.resolve() for r in repos]
    if not roots:
        target = resolve_targets([], config, cwd)[0]
        if target.repo.root is None:
            echo("curator: error: this project's store has no known repository", err=True)
            sys.exit(EXIT_ERROR)
        roots = [target.repo.root]
    exclude = tuple(str(g) for g in config.get("references.history_exclude"))
    failed = False
    for root in roots:
        index = open_index(root, cache_dir(config) / "history", exclude)
        if index is None:
            failed = True
            if not quiet:
                why = unavailable().get(str(root))
                problem = (
                    f"history unavailable: {why}" if why else "not a git repository with commits"
                )
                echo(f"curator: error: {root}: {problem}", err=True)
            continue
        stats = index.stats
        commits, paths, tokens = index.counts()
        index.close()
        if quiet:
            continue
        verb = {"built": "built", "updated": "updated", "cached": "up to date"}[stats.mode]
        echo(
            f"{root}: {commits} commits, {paths} paths, {tokens} removed identifiers "
            f"({verb}, {stats.seconds:.2f} s)"
        )
        for limit in index.limits:
            echo(f"curator: {root}: {limit}", err=True)
    sys.exit(EXIT_ERROR if failed else EXIT_CLEAN)
