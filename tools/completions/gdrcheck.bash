# bash completion for gdrcheck. The commands and options come from
# gdrcheck's own --help (read once per shell and command), so the
# completion always matches the installed version.
_gdrcheck_words() {
  # $1: "" for the top level, else a command ("bench", "bench nccl").
  local key="_gdrcheck_cache_${1// /_}" help
  if [[ -z ${!key+set} ]]; then
    # shellcheck disable=SC2086  # the command words are split on purpose
    help=$(command gdrcheck $1 --help 2>/dev/null)
    printf -v "$key" '%s' "$(printf '%s\n' "$help" | awk '
      /^(Subcommands|SUBCOMMANDS):/ { sub_ = 1; next }
      /^[A-Za-z].*:$/ { sub_ = 0 }
      sub_ && /^  [a-z]/ { print $1; next }
      { for (i = 1; i <= NF; i++) if ($i ~ /^-/) { split($i, o, ","); for (j in o) if (o[j] ~ /^-/) print o[j] } }' |
      sort -u | tr '\n' ' ')"
  fi
  printf '%s' "${!key}"
}

_gdrcheck() {
  local cur prev cmd="" i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}
  # The command path typed so far: words that are not options.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) break ;;
      *) if [[ " $(_gdrcheck_words "$cmd") " == *" ${COMP_WORDS[i]} "* ]]; then cmd="${cmd:+$cmd }${COMP_WORDS[i]}"; fi ;;
    esac
  done
  case $prev in
    --root | --from | --save | --output-dir | --nccl-tests | --manifest | --write-manifest | --hostfile | --policy | \
      --prometheus-file | --bandwidth | -o)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
      ;;
  esac
  mapfile -t COMPREPLY < <(compgen -W "$(_gdrcheck_words "$cmd")" -- "$cur")
  if [[ ${#COMPREPLY[@]} -eq 0 ]]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -F _gdrcheck gdrcheck
