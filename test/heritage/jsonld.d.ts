// jsonld ships no type declarations; the tests use expand() only.
declare module 'jsonld' {
  const jsonld: { expand(input: object, options?: { documentLoader?: (url: string) => Promise<never> }): Promise<Array<Record<string, unknown>>> }
  export default jsonld
}
