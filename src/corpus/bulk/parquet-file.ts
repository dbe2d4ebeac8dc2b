/**
 * Row ranges of one parquet file, read with hyparquet (pure JavaScript, snappy built in,
 * which is what the bulk datasets are written with). The file is opened once without
 * following a symbolic link and read by byte range, so only the footer and the pages of
 * the requested rows and columns are in memory, never the whole file.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';

export interface ParquetFile {
  readonly rows: number;
  /** Top-level column names the file has. */
  readonly columns: ReadonlySet<string>;
  /** Rows [start, end) as objects holding only `columns` that the file has. */
  read(start: number, end: number, columns: readonly string[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function fileBuffer(handle: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const to = Math.min(end ?? size, size);
      const length = Math.max(0, to - start);
      const bytes = new Uint8Array(length);
      let read = 0;
      while (read < length) {
        const { bytesRead } = await handle.read(bytes, read, length - read, start + read);
        if (bytesRead === 0) throw new Error(`file ended at byte ${start + read} of ${size}`);
        read += bytesRead;
      }
      return bytes.buffer;
    },
  };
}

export async function openParquet(path: string): Promise<ParquetFile> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const { size } = await handle.stat();
    const file = fileBuffer(handle, size);
    const metadata: FileMetaData = await parquetMetadataAsync(file);
    const columns = new Set(metadata.schema.slice(1).map((s) => s.name));
    return {
      rows: Number(metadata.num_rows),
      columns,
      read: async (start, end, wanted) => {
        const present = wanted.filter((c) => columns.has(c));
        if (present.length === 0) return Array.from({ length: end - start }, () => ({}));
        return (await parquetReadObjects({ file, metadata, columns: present, rowStart: start, rowEnd: end })) as Record<string, unknown>[];
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
