// audio-type ships no type declarations; this is the one function we use.
declare module 'audio-type' {
  export default function audioType(head: Uint8Array): string | undefined;
}
