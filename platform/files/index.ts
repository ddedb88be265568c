export {
  ABANDONED_AFTER_HOURS,
  createFileStore,
  DEFAULT_CHUNK_SIZE,
  type FileResponse,
  type FileStore,
  type FileStoreOptions,
  type StagedFile,
  type StoredFileInfo,
  type WriteOptions,
} from './file-store.js'
export { parseRange, type ByteRange, type RangeRequest } from './byte-range.js'
