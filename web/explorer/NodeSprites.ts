// Pre-drawn node discs. Blitting a small bitmap per node is several times cheaper than filling 2,000 arcs,
// which matters most where canvas is rasterised in software.

// Canvas sprites come in radius steps of a quarter octave and are scaled to the exact size when drawn, so
// zooming reuses a handful of bitmaps instead of drawing new ones every frame.
const STEPS_PER_OCTAVE = 4;
const MAX_CACHED = 1000;
/** Largest radius (device pixels) served as pixels for the JavaScript frame buffer. */
export const MAX_PIXEL_SPRITE_RADIUS = 24;

/** A disc's covered pixels, for PixelBuffer.blit: offsets in the sprite box, opaque colour words (0xAABBGGRR)
 * and coverage (0-256). */
export interface PixelSprite {
  size: number;
  /** How many of the pixels (the first ones) are fully covered. */
  opaque: number;
  dx: Int16Array;
  dy: Int16Array;
  word: Uint32Array;
  cover: Uint16Array;
}

function disc(color: string, r: number): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  const size = Math.ceil(r * 2 + 4);
  canvas.width = canvas.height = size;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  if (g) {
    g.beginPath();
    g.arc(size / 2, size / 2, r, 0, 2 * Math.PI);
    g.fillStyle = color;
    g.fill();
    if (r >= 2.5) {
      g.strokeStyle = '#ffffff';
      g.lineWidth = Math.min(2, r / 3);
      g.stroke();
    }
  }
  return canvas;
}

/** Caches of discs by colour and size: canvases for drawImage, and pixel arrays for the frame buffer. */
export class NodeSprites {
  private readonly canvases = new Map<string, HTMLCanvasElement>();
  // By colour, then by radius in half pixels: no string keys in the per-node lookup.
  private readonly pixels = new Map<string, PixelSprite[]>();

  /** Draws a disc of `radius` device pixels centred on (x, y) device pixels. */
  draw(ctx: CanvasRenderingContext2D, color: string, x: number, y: number, radius: number): void {
    const step = Math.ceil(Math.log2(Math.max(1, radius)) * STEPS_PER_OCTAVE);
    const key = `${color}|${step}`;
    let sprite = this.canvases.get(key);
    if (!sprite && this.canvases.size >= MAX_CACHED) this.canvases.clear();
    if (!sprite) this.canvases.set(key, (sprite = disc(color, 2 ** (step / STEPS_PER_OCTAVE))));
    const size = sprite.width * (radius / 2 ** (step / STEPS_PER_OCTAVE));
    ctx.drawImage(sprite, x - size / 2, y - size / 2, size, size);
  }

  /** The pixels of a disc of `radius` device pixels, rounded to half a pixel (at most MAX_PIXEL_SPRITE_RADIUS). */
  pixelsOf(color: string, radius: number): PixelSprite {
    const half = Math.round(Math.min(MAX_PIXEL_SPRITE_RADIUS, Math.max(0.5, radius)) * 2);
    let sizes = this.pixels.get(color);
    if (!sizes) this.pixels.set(color, (sizes = []));
    let sprite = sizes[half];
    if (!sprite) {
      const r = half / 2;
      const canvas = disc(color, r);
      const size = canvas.width;
      const data =
        canvas.getContext('2d', { willReadFrequently: true })?.getImageData(0, 0, size, size).data ??
        new Uint8ClampedArray(size * size * 4);
      const covered: number[] = [];
      for (let i = 0; i < size * size; i++) if (data[i * 4 + 3]! === 255) covered.push(i);
      const opaque = covered.length;
      for (let i = 0; i < size * size; i++) if (data[i * 4 + 3]! > 0 && data[i * 4 + 3]! < 255) covered.push(i);
      const words = new Uint32Array(data.buffer);
      sprite = {
        size,
        opaque,
        dx: Int16Array.from(covered, (i) => i % size),
        dy: Int16Array.from(covered, (i) => Math.floor(i / size)),
        word: Uint32Array.from(covered, (i) => (words[i]! | 0xff000000) >>> 0),
        // getImageData is not premultiplied: the colour stays as is and the coverage is in alpha.
        cover: Uint16Array.from(covered, (i) => Math.round((data[i * 4 + 3]! * 256) / 255)),
      };
      sizes[half] = sprite;
    }
    return sprite;
  }
}
