/** How a command answers: one JSON object on stdout with --json, readable text otherwise. */
export interface Output {
  readonly json: boolean;
  result(value: unknown, text: string): void;
  failure(code: string, message: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, text) {
      process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
    },
    failure(code, message) {
      if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
      process.stderr.write(`gantry: ${message}\n`);
    },
  };
}
