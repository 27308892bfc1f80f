// jq-web ships no types: the part of its API that jq.ts uses.
declare module 'jq-web' {
  interface JqWeb {
    /** Runs jq with `flags` and `filter` over `json`; its stdout without the last newline, undefined when empty. Throws with `exitCode` when jq fails. */
    raw(json: string, filter: string, flags?: string[]): string | undefined;
  }
  const jq: Promise<JqWeb>;
  export default jq;
}
