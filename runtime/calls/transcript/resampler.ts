/**
 * Streaming linear-interpolation resampler for one channel. Calls are 8–48 kHz speech and the
 * engines want 16 kHz: upsampling telephone audio loses nothing, and speech has little energy
 * above 8 kHz to alias when wideband audio is brought down.
 */
export class LinearResampler {
  readonly #step: number;
  /** Position of the next output sample, in input samples from the start of the next block (may be negative: between the previous block's last sample and this one's first). */
  #position = 0;
  #previous = 0;

  constructor(inputRate: number, outputRate: number) {
    this.#step = inputRate / outputRate;
  }

  push(input: Float32Array): Float32Array {
    const output = new Float32Array(Math.max(0, Math.ceil((input.length - this.#position) / this.#step) + 1));
    let written = 0;
    let position = this.#position;
    while (position < input.length - 1 && input.length > 0) {
      const index = Math.floor(position);
      const fraction = position - index;
      const a = index < 0 ? this.#previous : input[index]!;
      const b = input[index + 1]!;
      output[written++] = a + (b - a) * fraction;
      position += this.#step;
    }
    if (input.length > 0) {
      this.#previous = input[input.length - 1]!;
      this.#position = position - input.length;
    }
    return output.subarray(0, written);
  }
}
