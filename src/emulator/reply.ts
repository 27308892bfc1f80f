// What a route answers, before it is written to the socket: a status and a JSON body
// that is already a string (pages are joined from pre-serialised records).

export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });

/** The API's documented error body: {"error":{"code":404,"message":"Page not found"}}. */
export const errorReply = (status: number, message: string): Reply => json(status, { error: { code: status, message } });

export const pageNotFound = (): Reply => errorReply(404, 'Page not found');

/** Thrown by parsers deep in a handler; the server turns it into an error reply. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
