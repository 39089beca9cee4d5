/**
 * The answer to one http request as the executor keeps it: its hops (the request's response and
 * those of the redirects it followed). Apart from http-send.ts so that http-unsafe.ts can build one.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** One response of an exchange (the request's, or a redirect's). */
export interface HttpHop {
  /** The URL this hop's request went to (the first as the template wrote it). */
  url: string;
  /** The host name it went to (the cookie jar's key). */
  host: string;
  method: string;
  status: number;
  statusText: string;
  httpVersion: string;
  headers: IncomingHttpHeaders;
  /** The decoded body, cut at the cap. */
  body: Uint8Array;
  durationSeconds: number;
  /** The request as sent (request line, headers, body), for the `request` part and excerpts. */
  requestDump: string;
}

/** The answer to one request: its hops in order (the last is the final response). */
export interface HttpExchange {
  hops: HttpHop[];
  /** Body bytes held (the cache's size measure). */
  bytes: number;
}

