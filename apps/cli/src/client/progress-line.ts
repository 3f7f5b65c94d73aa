import ora, { type Ora } from 'ora';

/** One live line for a waiting task: a spinner on a terminal, plain lines (one per change) otherwise. Always on stderr. */
export class ProgressLine {
  readonly #spinner?: Ora;
  #last = '';

  constructor(
    readonly label: string,
    tty = Boolean(process.stderr.isTTY),
  ) {
    if (tty) this.#spinner = ora({ text: label, stream: process.stderr }).start();
  }

  update(message: string | undefined): void {
    if (!message || message === this.#last) return;
    this.#last = message;
    if (this.#spinner) this.#spinner.text = `${this.label}  ${message}`;
    else process.stderr.write(`${this.label}  ${message}\n`);
  }

  done(ok: boolean, message: string): void {
    if (this.#spinner) {
      if (ok) this.#spinner.succeed(`${this.label}  ${message}`);
      else this.#spinner.fail(`${this.label}  ${message}`);
    } else process.stderr.write(`${this.label}  ${message}\n`);
  }

  /** Stops the spinner without a verdict (the task goes on without us). */
  pause(message: string): void {
    if (this.#spinner) this.#spinner.stopAndPersist({ symbol: '…', text: `${this.label}  ${message}` });
    else process.stderr.write(`${this.label}  ${message}\n`);
  }
}
