import { isIP } from 'node:net';

// Which Host headers a local server answers (the listener, the emulator): a web page
// whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name and is refused.

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * Host names a request may carry: the listening address and localhost, on the listening
 * port. Bound to a wildcard address, any IP literal is the listening address (a rebinding
 * page always sends its own name, never an IP).
 */
export function hostChecker(boundHost: string, port: number): (header: string | undefined) => boolean {
  const bound = boundHost.replace(/^\[|\]$/g, '').toLowerCase();
  const wildcard = bound === '0.0.0.0' || bound === '::';
  return (header) => {
    if (!header) return false;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(header.trim().toLowerCase());
    if (!m) return false;
    const name = m[1].replace(/^\[|\]$/g, '');
    const hostPort = m[2] === undefined ? 80 : Number(m[2]);
    if (hostPort !== port) return false;
    return LOCAL_NAMES.has(name) || name === bound || (wildcard && isIP(name) !== 0) || /^127\.\d+\.\d+\.\d+$/.test(name);
  };
}
