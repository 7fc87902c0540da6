#!/bin/sh
# The curator plugin's SessionStart hook. Claude Code runs it with the hook's JSON on
# stdin and reads one JSON object from stdout. It runs `curator hook session-start` with
# the first curator it finds that can answer without blocking the session:
#
#   1. `curator` on PATH, or in the folder pipx and uv install tools into, when it is at
#      least MIN_VERSION;
#   2. `uvx --offline`, pinned to this plugin's version: only what uv already has cached;
#   3. `pipx run`, pinned the same way, only when pipx already has that version cached,
#      with the package indexes switched off;
#
# and otherwise says in one line how to install curator: once per message, as a
# `systemMessage` for the user and as context for the model. A download never happens
# here: it would not fit in a session start. Whatever is missing, it prints valid JSON
# and exits 0.

# The oldest curator whose `hook session-start` this plugin works with. Raise it when
# the hook or the /curator skill starts relying on something newer.
MIN_VERSION=0.1.0

here=$(dirname -- "$0")
root=${CLAUDE_PLUGIN_ROOT:-$here/..}
data=${CLAUDE_PLUGIN_DATA:-}
version=$(sed -n 's/.*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' \
  "$root/.claude-plugin/plugin.json" 2>/dev/null | head -n 1)
version=${version:-$MIN_VERSION}
install_hint="\`pipx install memory-curator\` or \`uv tool install memory-curator\` (before its first release on PyPI: \`pipx install git+https://github.com/curator-dev/curator\`)"

# A session curator itself started (`claude -p` for the LLM sweep) gets nothing.
if [ "${CURATOR_NESTED:-}" = 1 ]; then
  echo '{}'
  exit 0
fi

# Every candidate gets the same hook input.
payload=$(cat)

# at_least A B: whether dotted version A >= B (the first three numeric fields).
at_least() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    split(a, x, "."); split(b, y, ".")
    for (i = 1; i <= 3; i++) {
      if (x[i] + 0 > y[i] + 0) exit 0
      if (x[i] + 0 < y[i] + 0) exit 1
    }
    exit 0
  }'
}

# version_of PATH: the version a curator executable reports. Asking costs a Python
# start, so the answer is kept in the plugin's data folder until the executable changes.
version_of() {
  stamp=$data/curator-version
  if [ -n "$data" ] && [ -f "$stamp" ] && [ -z "$(find -L "$1" -newer "$stamp" 2>/dev/null)" ]; then
    while IFS='	' read -r path seen; do
      if [ "$path" = "$1" ]; then
        printf '%s\n' "$seen"
        return 0
      fi
    done <"$stamp"
  fi
  seen=$("$1" --version 2>/dev/null) || return 1
  seen=$(printf '%s\n' "$seen" | sed -n '1s/.* //p')  # "curator, version 0.1.0"
  if [ -n "$data" ] && mkdir -p "$data" 2>/dev/null; then
    printf '%s\t%s\n' "$1" "$seen" >"$stamp" 2>/dev/null
  fi
  printf '%s\n' "$seen"
}

# answer COMMAND...: runs the command on the hook input; when it answers with a JSON
# object, prints that and ends the hook.
answer() {
  out=$(printf '%s\n' "$payload" | "$@")
  status=$?
  case $out in
    "{"*)
      if [ "$status" -eq 0 ]; then
        printf '%s\n' "$out"
        exit 0
      fi
      ;;
  esac
  return 1
}

# json_string TEXT: TEXT as a JSON string literal, one line.
json_string() {
  printf '"%s"' "$(printf '%s' "$1" | tr '[:cntrl:]' ' ' | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

# tell MESSAGE: says MESSAGE to the user and the model, unless this plugin already said
# exactly that; then ends the hook.
tell() {
  notice=$data/notice
  if [ -n "$data" ] && [ -f "$notice" ] && [ "$(cat "$notice" 2>/dev/null)" = "$1" ]; then
    echo '{}'
    exit 0
  fi
  if [ -n "$data" ] && mkdir -p "$data" 2>/dev/null; then
    printf '%s\n' "$1" >"$notice" 2>/dev/null
  fi
  text=$(json_string "$1")
  printf '{"systemMessage": %s, "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": %s}}\n' \
    "$text" "$text"
  exit 0
}

# note MESSAGE: what went wrong first, for the line the user gets if nothing answers.
problem=""
note() {
  [ -n "$problem" ] || problem=$1
}

# 1. An installed curator.
tried=""
for candidate in "$(command -v curator 2>/dev/null)" \
  "${PIPX_BIN_DIR:-}/curator" "${UV_TOOL_BIN_DIR:-}/curator" \
  "${XDG_BIN_HOME:-$HOME/.local/bin}/curator"; do
  case $candidate in /*) ;; *) continue ;; esac
  [ -x "$candidate" ] && [ ! -d "$candidate" ] || continue
  case "
$tried" in *"
$candidate
"*) continue ;; esac
  tried="$tried$candidate
"
  found=$(version_of "$candidate") || {
    note "curator at $candidate does not run (\`$candidate --version\` says why); reinstall it with $install_hint."
    continue
  }
  if ! at_least "$found" "$MIN_VERSION"; then
    note "curator $found at $candidate is older than this plugin needs ($MIN_VERSION): \`pipx upgrade memory-curator\` or \`uv tool upgrade memory-curator\`."
    continue
  fi
  answer "$candidate" hook session-start && exit 0
  note "curator at $candidate did not answer the hook; \`echo '{}' | $candidate hook session-start\` shows why."
done

# 2. uv's cache, never the network.
if command -v uvx >/dev/null 2>&1; then
  answer uvx --offline --quiet --from "memory-curator==$version" curator hook session-start && exit 0
  note "curator is not installed, and uv has no cached copy of memory-curator $version (a download does not fit in a session start): install it with $install_hint."
fi

# 3. A venv `pipx run` already made for this version, with the indexes switched off.
if command -v pipx >/dev/null 2>&1; then
  cache=$(pipx environment --value PIPX_VENV_CACHEDIR 2>/dev/null)
  for dist in "$cache"/*/lib/python*/site-packages/memory_curator-"$version".dist-info; do
    if [ -n "$cache" ] && [ -d "$dist" ]; then
      answer env PIP_NO_INDEX=1 UV_OFFLINE=1 \
        pipx run --spec "memory-curator==$version" curator hook session-start && exit 0
      break
    fi
  done
  note "curator is not installed, and pipx has no cached copy of memory-curator $version (a download does not fit in a session start): install it with $install_hint."
fi

tell "${problem:-"curator is not installed: install it with $install_hint, then start a new session."}"
