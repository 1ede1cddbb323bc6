// A frame rasterised in JavaScript: 1-pixel lines and pre-drawn node discs written into one ImageData, put on
// the canvas in one call. For thousands of links and nodes this beats canvas strokes and drawImage several times
// over where canvas is rasterised in software; small graphs keep the anti-aliased canvas drawing.
// Every line has the same colour, so a pixel only counts the lines crossing it, and one pass turns counts into
// colours (each line blends over the ones below at the same alpha).
import type { PixelSprite } from './NodeSprites.js';

/** A reusable frame buffer the size of the canvas. */
export class PixelBuffer {
  private image: ImageData | null = null;
  private words = new Uint32Array(0);
  // Clamped, so a pixel crossed by more than 255 lines simply stays at 255.
  private counts = new Uint8ClampedArray(0);
  private width = 0;
  private height = 0;

  /** Clears the buffer for a frame of `width` × `height` device pixels. */
  begin(ctx: CanvasRenderingContext2D, width: number, height: number): void {
    if (!this.image || this.width !== width || this.height !== height) {
      this.image = ctx.createImageData(width, height);
      this.words = new Uint32Array(this.image.data.buffer);
      this.counts = new Uint8ClampedArray(width * height);
      this.width = width;
      this.height = height;
    } else {
      this.counts.fill(0);
    }
  }

  /** Adds a line (device pixels), clipped to the buffer. */
  line(x0: number, y0: number, x1: number, y1: number): void {
    const clipped = clip(x0, y0, x1, y1, this.width - 1, this.height - 1);
    if (!clipped) return;
    const w = this.width;
    const counts = this.counts;
    // A DDA in 16.16 fixed point: one step along the major axis per pixel, no branches in the loop.
    const xa = Math.round(clipped[0]),
      ya = Math.round(clipped[1]);
    const steps = Math.max(Math.abs(Math.round(clipped[2]) - xa), Math.abs(Math.round(clipped[3]) - ya));
    const sx = steps ? ((Math.round(clipped[2]) - xa) * 65536) / steps : 0;
    const sy = steps ? ((Math.round(clipped[3]) - ya) * 65536) / steps : 0;
    let fx = xa * 65536 + 32768,
      fy = ya * 65536 + 32768;
    for (let i = 0; i <= steps; i++) {
      const p = (fy >> 16) * w + (fx >> 16);
      counts[p] = counts[p]! + 1;
      fx += sx;
      fy += sy;
    }
  }

  /** Turns the line counts into colours: `rgb` at `alpha` per line over the `background` colour. */
  paintLines(background: [number, number, number], rgb: [number, number, number], alpha: number): void {
    if (!this.image) return;
    const lut = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      const keep = (1 - alpha) ** n;
      const [r, g, b] = background.map((bg, i) => Math.round(bg * keep + (rgb[i] ?? 0) * (1 - keep))) as [
        number,
        number,
        number,
      ];
      // ImageData is RGBA in memory, so a little-endian 32-bit word reads 0xAABBGGRR.
      lut[n] = ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
    }
    const { words, counts } = this;
    for (let i = 0; i < counts.length; i++) words[i] = lut[counts[i]!]!;
  }

  /** Blends a sprite centred on (cx, cy) device pixels, at `opacity` (0-1), over what is painted. */
  blit(sprite: PixelSprite, cx: number, cy: number, opacity: number): void {
    const { width: w, height: h, words } = this;
    const left = Math.round(cx - sprite.size / 2),
      top = Math.round(cy - sprite.size / 2);
    if (!this.image || left >= w || top >= h || left + sprite.size <= 0 || top + sprite.size <= 0) return;
    const inside = left >= 0 && top >= 0 && left + sprite.size <= w && top + sprite.size <= h;
    const { dx, dy, word, cover, opaque } = sprite;
    const o256 = Math.round(opacity * 256);
    // Opaque pixels come first in the sprite: at full opacity they are plain writes.
    const first = inside && o256 === 256 ? opaque : 0;
    for (let i = 0; i < first; i++) words[(top + dy[i]!) * w + left + dx[i]!] = word[i]!;
    for (let i = first; i < dx.length; i++) {
      const x = left + dx[i]!,
        y = top + dy[i]!;
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const p = y * w + x;
      const a = (cover[i]! * o256) >> 8;
      const back = words[p]!,
        src = word[i]!,
        keep = 256 - a;
      // Red and blue blend in one multiply, green in another (a + keep = 256, so nothing overflows 32 bits).
      const rb = (((back & 0xff00ff) * keep + (src & 0xff00ff) * a) >>> 8) & 0xff00ff;
      const g = (((back & 0x00ff00) * keep + (src & 0x00ff00) * a) >>> 8) & 0x00ff00;
      words[p] = (0xff000000 | rb | g) >>> 0;
    }
  }

  /** Puts the buffer on the canvas (ignoring its transform). */
  end(ctx: CanvasRenderingContext2D): void {
    if (this.image) ctx.putImageData(this.image, 0, 0);
  }
}

// Liang–Barsky: the part of a segment inside [0, maxX] × [0, maxY], or null.
function clip(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  maxX: number,
  maxY: number,
): [number, number, number, number] | null {
  const dx = x1 - x0,
    dy = y1 - y0;
  let t0 = 0,
    t1 = 1;
  const ps = [-dx, dx, -dy, dy];
  const qs = [x0, maxX - x0, y0, maxY - y0];
  for (let i = 0; i < 4; i++) {
    const p = ps[i]!,
      q = qs[i]!;
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const t = q / p;
    if (p < 0) {
      if (t > t1) return null;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return null;
      if (t < t1) t1 = t;
    }
  }
  return [x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy];
}
