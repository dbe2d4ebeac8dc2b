/**
 * Opaque keyword-search cursors: a position the next page starts at, bound to the search
 * it was issued for. A cursor that is forged, altered or from another search decodes to null.
 */
export interface CursorPosition {
  /** Results before the next page: the offset the next search starts at. */
  readonly offset: number;
}

export interface SearchCursors {
  encode(position: CursorPosition, scope: unknown): Promise<string>;
  decode(cursor: string, scope: unknown): Promise<CursorPosition | null>;
}
