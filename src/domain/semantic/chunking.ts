/**
 * What of a case is embedded, and in which pieces. Judgments run to half a million
 * characters, far beyond what one sentence-embedding vector can stand for, so the text is
 * cut into chunks at paragraph and sentence ends, each sharing a short overlap with the
 * one before so a passage cut at a boundary is still whole in one of them. Every chunk
 * opens with the case's heading (title or parties, and case number), so a chunk from deep
 * inside a judgment still says whose case it is; the summary or headnote, when the source
 * has one, is chunked first, because it says most about the case in the fewest words.
 *
 * The sizes follow the model. Universal Sentence Encoder lite was trained on sentences and
 * short paragraphs and pools its tokens, so a long input blurs into an average; its
 * sentencepiece tokenizer also costs time quadratic in input length. About 1,500
 * characters (roughly 300 to 700 tokens: lower-cased OCR text splits into more pieces)
 * keeps a chunk to one line of argument. The embedding cost here is per chunk, not per
 * token, so chunks are not made smaller than that, and a case keeps at most `maxChunks`
 * (its summary first, then text chunks spread evenly over the judgment) so one
 * 500,000-character judgment cannot cost as much as a hundred ordinary ones.
 * Pure: no IO.
 */

export interface ChunkingOptions {
  /** A chunk is closed once it reaches this many characters. */
  readonly targetChars: number;
  /** No chunk body is longer than this. */
  readonly maxChars: number;
  /** Characters of the previous chunk's end repeated at the start of the next. */
  readonly overlapChars: number;
  /** Chunks kept per case, heading included in each. */
  readonly maxChunks: number;
}

/** Sized for Universal Sentence Encoder lite (see the module header). */
export const USE_LITE_CHUNKING: ChunkingOptions = { targetChars: 1500, maxChars: 2000, overlapChars: 200, maxChunks: 32 };

/** The parts of a case that go into its embedding input. */
export interface CaseText {
  readonly caseNumber: string;
  readonly title: string | null;
  readonly petitioners: readonly string[];
  readonly respondents: readonly string[];
  readonly summary: string | null;
  readonly text: string | null;
}

export interface CaseChunk {
  /** 0-based, in reading order (summary chunks first). */
  readonly chunkNo: number;
  /** The heading line, then the chunk body. */
  readonly content: string;
}

const HEADING_CHARS = 300;

/** Wrapped text: a hyphen at a line end splits a word ("appoint-\nment"). */
const WRAP_HYPHEN = /([a-z])-\n[ \t]*([a-z])/gi;
/** A new paragraph: a blank line, an indented line, or a numbered or lettered one after a line end. */
const PARAGRAPH_START = /\n[ \t]*\n|\n(?=[ \t]{2,}\S)|\n(?=[ \t]*(?:\d{1,3}\.|\([a-z0-9]{1,4}\))\s)/gi;
/** A sentence ends at . ? or ! (with a closing quote or bracket) before whitespace. */
const SENTENCE_END = /(?<=[.?!]["')\]]?)\s+/;

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Paragraphs of a judgment or summary, whitespace collapsed, wrapped lines joined. */
export function paragraphs(text: string): string[] {
  const unwrapped = text.replace(/\r\n?/g, '\n').replace(WRAP_HYPHEN, '$1$2');
  return unwrapped
    .split(PARAGRAPH_START)
    .flatMap((block) => block.split(/(?<=[.?!:]["')\]]?)[ \t]*\n/))
    .map(squash)
    .filter((p) => p !== '');
}

/** Cuts a piece longer than `max` at sentence ends, then at the last space before `max`. */
function pieces(paragraph: string, max: number): string[] {
  if (paragraph.length <= max) return [paragraph];
  const out: string[] = [];
  for (const sentence of paragraph.split(SENTENCE_END)) {
    let rest = sentence;
    while (rest.length > max) {
      const space = rest.lastIndexOf(' ', max);
      const cut = space > max / 2 ? space : max;
      out.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trim();
    }
    if (rest !== '') out.push(rest);
  }
  return out;
}

/** The end of a chunk repeated at the start of the next: whole pieces, else a word-aligned tail. */
function overlapOf(chunkPieces: readonly string[], overlapChars: number): string[] {
  const kept: string[] = [];
  let length = 0;
  for (let i = chunkPieces.length - 1; i >= 0; i--) {
    const piece = chunkPieces[i] ?? '';
    if (length + piece.length + 1 > overlapChars) {
      if (kept.length === 0) {
        const tail = piece.slice(-overlapChars);
        const space = tail.indexOf(' ');
        const aligned = space >= 0 ? tail.slice(space + 1) : tail;
        if (aligned !== '') kept.unshift(aligned);
      }
      break;
    }
    kept.unshift(piece);
    length += piece.length + 1;
  }
  return kept;
}

/** Chunk bodies of one text: paragraphs packed up to the target, with overlap. */
export function chunkText(text: string, options: ChunkingOptions): string[] {
  const all = paragraphs(text).flatMap((p) => pieces(p, options.maxChars - options.overlapChars));
  const chunks: string[] = [];
  let current: string[] = [];
  let length = 0;
  let fresh = 0;
  const close = (): void => {
    chunks.push(current.join(' '));
    current = overlapOf(current, options.overlapChars);
    length = current.reduce((n, p) => n + p.length + 1, 0);
    fresh = 0;
  };
  for (const piece of all) {
    if (fresh > 0 && length + piece.length > options.maxChars) close();
    while (current.length > 0 && length + piece.length > options.maxChars) length -= (current.shift() ?? '').length + 1;
    current.push(piece);
    length += piece.length + 1;
    fresh += 1;
    if (length >= options.targetChars) close();
  }
  if (fresh > 0) chunks.push(current.join(' '));
  return chunks;
}

/** Title, else "petitioner v. respondent", with the case number: the line every chunk opens with. */
export function caseHeading(text: CaseText): string {
  const parties =
    text.petitioners.length > 0 || text.respondents.length > 0 ? `${text.petitioners[0] ?? ''} v. ${text.respondents[0] ?? ''}` : '';
  const name = squash(text.title ?? parties);
  const heading = name === '' ? text.caseNumber : `${name} (${text.caseNumber})`;
  return squash(heading).slice(0, HEADING_CHARS);
}

/** Evenly spaced picks of `count` out of `items`, first and last included. */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  if (count <= 1) return items.slice(0, count);
  const picked: T[] = [];
  for (let i = 0; i < count; i++) {
    const item = items[Math.round((i * (items.length - 1)) / (count - 1))];
    if (item !== undefined) picked.push(item);
  }
  return picked;
}

/**
 * The chunks to embed for one case: summary chunks first (at most a quarter of the
 * budget), then judgment-text chunks spread over the whole judgment. No summary and no
 * text gives no chunks: a bare heading says too little to be worth a vector.
 */
export function chunkCase(text: CaseText, options: ChunkingOptions = USE_LITE_CHUNKING): CaseChunk[] {
  const heading = caseHeading(text);
  const summary = text.summary === null ? [] : chunkText(text.summary, options);
  const body = text.text === null ? [] : chunkText(text.text, options);
  const summaryKept = summary.slice(0, body.length === 0 ? options.maxChunks : Math.max(1, Math.floor(options.maxChunks / 4)));
  const bodyKept = spread(body, options.maxChunks - summaryKept.length);
  return [...summaryKept, ...bodyKept].map((chunk, chunkNo) => ({ chunkNo, content: `${heading}\n${chunk}` }));
}
