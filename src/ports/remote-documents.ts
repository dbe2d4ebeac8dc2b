/**
 * Fetching a judgment document from a court's own site for allowRemoteFetch. The adapter
 * enforces the allowlist on every hop (a redirect to another host is refused), a size cap
 * and a timeout; the caller checks the first URL against the same allowlist up front.
 */
export class RemoteFetchRefusedError extends Error {
  readonly tag = 'RemoteFetchRefused';
}

export class RemoteFetchFailedError extends Error {
  readonly tag = 'RemoteFetchFailed';

  constructor(
    message: string,
    /** A 404 or a non-PDF answer will not change on retry. */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export interface RemoteDocuments {
  /** The PDF bytes at `url`; throws RemoteFetchRefusedError or RemoteFetchFailedError. */
  fetchPdf(url: string, signal?: AbortSignal): Promise<Uint8Array>;
}
