// Path templates (`/v1/:chain/one-time/:id`) matched segment by segment. Where two
// templates fit a path, the one with a literal segment earlier wins, so
// `/one-time/transfers` is the transfers list and never a payment with id "transfers".

export interface RouteMatch<R> {
  route: R;
  params: Record<string, string>;
}

interface Compiled<R> {
  method: string;
  segments: string[];
  route: R;
}

export class Router<R> {
  private readonly routes: Compiled<R>[] = [];

  add(method: string, template: string, route: R): void {
    this.routes.push({ method, segments: split(template), route });
    this.routes.sort((a, b) => specificity(a.segments, b.segments));
  }

  match(method: string, path: string): RouteMatch<R> | undefined {
    const segments = split(path);
    for (const candidate of this.routes) {
      if (candidate.method !== method || candidate.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const fits = candidate.segments.every((s, i) => {
        if (!s.startsWith(':')) return s === segments[i];
        params[s.slice(1)] = segments[i];
        return segments[i] !== '';
      });
      if (fits) return { route: candidate.route, params };
    }
    return undefined;
  }
}

function split(path: string): string[] {
  return path.replace(/^\/+|\/+$/g, '').split('/').map(decodeSegment);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Orders templates so that, at the first differing kind of segment, a literal comes first. */
function specificity(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const pa = a[i].startsWith(':');
    const pb = b[i].startsWith(':');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}
