import { allNodes, type CompletionModel, type SHELL_NAMES } from './model.js';

// Completion scripts for bash, zsh and fish. All three share one design: a table of
// (path, word) → child path, and per path the words and flags to offer; only the
// glue that talks to each shell differs.

const HEADER = '# payrec shell completion. Generated from the command tree by `payrec completion`; do not edit.';

/** `case` arms in the syntax bash and zsh share. */
function shCaseTables(m: CompletionModel): string {
  const nodes = allNodes(m.root);
  const child = nodes.flatMap((n) =>
    n.children.flatMap((c) => c.names.map((name) => `    '${n.path.join(' ')}|${name}') echo '${c.path.join(' ')}' ;;`)),
  );
  const words = nodes.map((n) => `    '${n.path.join(' ')}') echo '${wordsOf(n).join(' ')}' ;;`);
  const flags = nodes.map((n) => `    '${n.path.join(' ')}') echo '${n.flags.join(' ')}' ;;`);
  const values = Object.entries(m.values).map(([f, v]) => `    ${f}) echo '${v.join(' ')}' ;;`);
  const columns = nodes.filter((n) => n.columns.length > 0).map((n) => `    '${n.path.join(' ')}') echo '${n.columns.join(' ')}' ;;`);
  return `_payrec_child() {
  case "$1|$2" in
${child.join('\n')}
    *) return 1 ;;
  esac
}
_payrec_words() {
  case "$1" in
${words.join('\n')}
  esac
}
_payrec_flags() {
  case "$1" in
${flags.join('\n')}
  esac
}
_payrec_values() {
  case "$1" in
${values.join('\n')}
    *) return 1 ;;
  esac
}
_payrec_columns() {
  case "$1" in
${columns.join('\n')}
    *) return 1 ;;
  esac
}
_payrec_takes_value() {
  case "$1" in
    ${m.valueFlags.join('|')}) return 0 ;;
  esac
  return 1
}
# Walks the words before the cursor to the command they name (aliases resolved).
# (Named cmdpath, not path: in zsh $path is tied to $PATH.)
_payrec_path() {
  local cmdpath="" skip=0 w next
  for w in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$w" in
      -*) _payrec_takes_value "$w" && skip=1; continue ;;
    esac
    next=$(_payrec_child "$cmdpath" "$w") && cmdpath="$next"
  done
  echo "$cmdpath"
}`;
}

export function bashScript(m: CompletionModel): string {
  return `${HEADER}
# Install: source <(payrec completion bash)   or copy to /etc/bash_completion.d/payrec
${shCaseTables(m)}
_payrec() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmdpath values
  cmdpath=$(_payrec_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if values=$(_payrec_values "$prev"); then
    COMPREPLY=($(compgen -W "$values" -- "$cur")); return
  fi
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --columns)
      # A comma-separated list: complete the field after the last comma, keep what is before it.
      local fields before=""
      fields=$(_payrec_columns "$cmdpath") || { COMPREPLY=(); return; }
      [[ "$cur" == *,* ]] && before="\${cur%,*},"
      COMPREPLY=($(compgen -P "$before" -W "$fields" -- "\${cur##*,}"))
      compopt -o nospace 2>/dev/null
      return ;;
  esac
  if _payrec_takes_value "$prev"; then COMPREPLY=(); return; fi
  if [[ "$cur" == -* ]]; then
    # A command's flags include those it inherits (record flags only where it prints records).
    COMPREPLY=($(compgen -W "$(_payrec_flags "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_payrec_words "$cmdpath")" -- "$cur"))
  fi
}
complete -o default -F _payrec payrec
`;
}

export function zshScript(m: CompletionModel): string {
  return `#compdef payrec
${HEADER}
# Install: payrec completion zsh > "\${fpath[1]}/_payrec"   (then restart zsh)
#     or: source <(payrec completion zsh)   (after compinit)
${shCaseTables(m)}
_payrec() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} cmdpath values
  cmdpath=$(_payrec_path "\${(@)words[2,CURRENT-1]}")
  if values=$(_payrec_values "$prev"); then compadd -- \${=values}; return; fi
  case "$prev" in
    -o|--output) _files; return ;;
    --columns)
      # A comma-separated list: what is before the last comma stays, the field after it completes.
      values=$(_payrec_columns "$cmdpath") || return
      compset -P '*,'
      compadd -S '' -- \${=values}
      return ;;
  esac
  if _payrec_takes_value "$prev"; then return; fi
  if [[ "$cur" == -* ]]; then
    compadd -- \${=$(_payrec_flags "$cmdpath")}
  else
    compadd -- \${=$(_payrec_words "$cmdpath")}
  fi
}
# Autoloaded from $fpath, this file is the body of _payrec: complete now.
# Sourced (source <(payrec completion zsh)), it registers the function.
if [[ "\${funcstack[1]}" == _payrec ]]; then
  _payrec "$@"
else
  compdef _payrec payrec
fi
`;
}

export function fishScript(m: CompletionModel): string {
  const nodes = allNodes(m.root);
  const arm = (key: string, out: string) => `        case '${key}'\n            ${out}`;
  const child = nodes.flatMap((n) => n.children.flatMap((c) => c.names.map((name) => arm(`${n.path.join(' ')}|${name}`, `echo '${c.path.join(' ')}'`))));
  const words = nodes.map((n) => arm(n.path.join(' '), `printf '%s\\n' ${wordsOf(n).join(' ')}`));
  const columns = nodes.filter((n) => n.columns.length > 0).map((n) => arm(n.path.join(' '), `printf '%s\\n' ${n.columns.join(' ')}`));
  const flags = nodes.map((n) => arm(n.path.join(' '), `printf '%s\\n' ${n.flags.join(' ')}`));
  const values = Object.entries(m.values).map(([f, v]) => arm(f, `printf '%s\\n' ${v.join(' ')}`));
  const table = (name: string, arms: string[]) =>
    `function ${name}\n    switch "$argv[1]"\n${arms.join('\n')}\n        case '*'\n            return 1\n    end\nend`;
  return `${HEADER}
# Install: payrec completion fish > ~/.config/fish/completions/payrec.fish
function __payrec_child
    switch "$argv[1]|$argv[2]"
${child.join('\n')}
        case '*'
            return 1
    end
end
${table('__payrec_words', words)}
${table('__payrec_flags', flags)}
${table('__payrec_values', values)}
${table('__payrec_columns', columns)}
function __payrec_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l skip 0
    for w in $words[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $w
            contains -- $w ${m.valueFlags.join(' ')}; and set skip 1
            continue
        end
        set -l next (__payrec_child "$cmdpath" $w); and set cmdpath $next
    end
    set -l prev $words[-1]
    __payrec_values $prev; and return
    if test "$prev" = --columns
        # A comma-separated list: keep what is before the last comma, complete the field after it.
        set -l before (string replace -r '[^,]*$' '' -- $cur)
        for field in (__payrec_columns $cmdpath)
            echo $before$field
        end
        return
    end
    if contains -- $prev -o --output
        __fish_complete_path $cur
        return
    end
    contains -- $prev ${m.valueFlags.join(' ')}; and return
    if string match -q -- '-*' $cur
        __payrec_flags $cmdpath
    else
        __payrec_words $cmdpath
    end
end
complete -c payrec -f -a '(__payrec_complete)'
`;
}

/** What a command offers for its next word: its subcommands, then its arguments' known values. */
function wordsOf(n: CompletionModel['root']): string[] {
  return [...n.children.map((c) => c.names[0]), ...n.args];
}

export const SHELLS: Record<(typeof SHELL_NAMES)[number], (m: CompletionModel) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };
export type Shell = keyof typeof SHELLS;
