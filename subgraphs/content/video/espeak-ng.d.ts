declare module 'espeak-ng' {
  /** The Emscripten module of espeak-ng: runs its command line once, with a virtual file system. */
  interface ESpeakNgModule {
    FS: { readFile(path: string): Uint8Array }
  }
  export default function ESpeakNg(options: { arguments: string[]; print?: (text: string) => void; printErr?: (text: string) => void }): Promise<ESpeakNgModule>
}
