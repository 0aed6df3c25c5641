/**
 * `completion bash|zsh`: a shell completion script generated from the
 * commands themselves, so it never lags behind them. zsh loads the same
 * function through its bash compatibility layer. Named after the program, so
 * the operator's `payments-admin` and the merchant's `payments` (merchant-cli/,
 * which bundles this) each get their own.
 */
import { Argument, type Command } from 'commander';
import { examples } from './tools';

interface Node {
  path: string;
  children: string[];
  options: string[];
}

function walk(command: Command, path: string[], out: Node[]): void {
  const options = [...command.options.map((option) => option.long ?? option.short ?? ''), '--help'].filter(Boolean);
  out.push({ path: path.join(' '), children: command.commands.map((sub) => sub.name()), options });
  for (const sub of command.commands) walk(sub, [...path, sub.name()], out);
}

const quote = (words: string[]) => words.join(' ').replace(/[^\w .:|/-]/g, '');

export function bashCompletion(program: Command): string {
  const nodes: Node[] = [];
  walk(program, [], nodes);
  const cases = (pick: (node: Node) => string[]) => nodes.map((node) => `    "${node.path}") echo "${quote(pick(node))}" ;;`).join('\n');
  const bin = program.name();
  const fn = `_${bin.replace(/\W/g, '_')}`;
  return `# ${bin} completion. Load it with:  source <(${bin} completion bash)
${fn}_children() {
  case "$1" in
${cases((node) => node.children)}
  esac
}
${fn}_options() {
  case "$1" in
${cases((node) => node.options)}
  esac
}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i start=1
  # \`npx ${bin} …\` (the README's form): its words start after npx's; any other npx command is left to the default.
  if [[ "\${COMP_WORDS[0]}" == npx ]]; then
    [[ "\${COMP_WORDS[1]}" == ${bin} && COMP_CWORD -gt 1 ]] || return 0
    start=2
  fi
  for ((i = start; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case " $(${fn}_children "$path") " in
      *" $word "*) path="\${path:+$path }$word" ;;
    esac
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${fn}_children "$path")" -- "$cur"))
  fi
}
complete -o default -F ${fn} ${bin} npx
`;
}

export function zshCompletion(program: Command): string {
  const bin = program.name();
  return `# ${bin} completion for zsh. Load it with:  source <(${bin} completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}

export function registerCompletionCommand(program: Command): void {
  const bin = program.name();
  examples(
    program
      .command('completion')
      .description('print a shell completion script (bash or zsh)')
      .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
      .action((shell: 'bash' | 'zsh') => {
        process.stdout.write(shell === 'zsh' ? zshCompletion(program) : bashCompletion(program));
      }),
    `completion bash > ~/.local/share/bash-completion/completions/${bin}`,
    `completion zsh >> ~/.zshrc   # or: source <(${bin} completion zsh)`,
  );
}
