/**
 * `payments-admin completion bash|zsh`: a shell completion script generated
 * from the commands themselves, so it never lags behind them. zsh loads the
 * same function through its bash compatibility layer.
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
  return `# payments-admin completion. Load it with:  source <(payments-admin completion bash)
_payments_admin_children() {
  case "$1" in
${cases((node) => node.children)}
  esac
}
_payments_admin_options() {
  case "$1" in
${cases((node) => node.options)}
  esac
}
_payments_admin() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i start=1
  # \`npx payments-admin …\` (the README's form): its words start after npx's; any other npx command is left to the default.
  if [[ "\${COMP_WORDS[0]}" == npx ]]; then
    [[ "\${COMP_WORDS[1]}" == payments-admin && COMP_CWORD -gt 1 ]] || return 0
    start=2
  fi
  for ((i = start; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case " $(_payments_admin_children "$path") " in
      *" $word "*) path="\${path:+$path }$word" ;;
    esac
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_payments_admin_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_payments_admin_children "$path")" -- "$cur"))
  fi
}
complete -o default -F _payments_admin payments-admin npx
`;
}

export function zshCompletion(program: Command): string {
  return `# payments-admin completion for zsh. Load it with:  source <(payments-admin completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}

export function registerCompletionCommand(program: Command): void {
  examples(
    program
      .command('completion')
      .description('print a shell completion script (bash or zsh)')
      .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
      .action((shell: 'bash' | 'zsh') => {
        process.stdout.write(shell === 'zsh' ? zshCompletion(program) : bashCompletion(program));
      }),
    'completion bash > ~/.local/share/bash-completion/completions/payments-admin',
    'completion zsh >> ~/.zshrc   # or: source <(payments-admin completion zsh)',
  );
}
