// The render loop: draws a frame whenever the layout moved or the view changed, and counts the frames it draws.
import { zoomIdentity, type ZoomTransform } from 'd3-zoom';
import type { TypeColors } from './TypeColors.js';
import { LocalLayout, type Layout } from './LocalLayout.js';
import { WorkerLayout } from './WorkerLayout.js';
import type { GraphModel } from './GraphModel.js';
import { Renderer } from './Renderer.js';
import type { ViewState } from './ViewState.js';

/** Owns the canvas, the layout and the frame loop; the stats hook reads its counters. */
export class Engine {
  readonly layout: Layout;
  transform: ZoomTransform = zoomIdentity;
  /** Frames drawn since the page loaded. */
  frames = 0;
  /** Moving average of the main-thread time one frame takes (ms). */
  frameMs = 0;
  width = 0;
  height = 0;
  /** Called before each draw (the camera uses it to follow an entity). */
  beforeDraw: (() => void) | null = null;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly renderer = new Renderer();
  private readonly stamps: number[] = [];
  private requested = false;
  private dirty = true;
  private boundVersion = -1;
  private dpr = 1;

  constructor(
    readonly canvas: HTMLCanvasElement,
    private readonly model: GraphModel,
    private readonly view: ViewState,
    private readonly colors: TypeColors,
  ) {
    const ctx = canvas.getContext('2d', { alpha: false });
    if (!ctx) throw new Error('this browser has no 2D canvas');
    this.ctx = ctx;
    let layout: Layout;
    try {
      layout = new WorkerLayout(() => this.request(false));
    } catch {
      layout = new LocalLayout();
    }
    this.layout = layout;
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement ?? canvas);
    this.resize();
  }

  /** Hands the model's nodes and links to the layout (when they changed) and warms it to `alpha`. */
  sync(alpha = 0.7): void {
    if (this.boundVersion !== this.model.version) {
      this.boundVersion = this.model.version;
      this.layout.setGraph([...this.model.nodes.values()], [...this.model.links.values()], alpha);
    } else {
      this.layout.reheat(alpha);
    }
    this.request();
  }

  /** Restarts the layout at `alpha` (0-1) unless it is already hotter. */
  reheat(alpha: number): void {
    this.layout.reheat(alpha);
    this.request();
  }

  /** Schedules a frame; with `redraw` (the default) it is drawn even if no node moved. */
  request(redraw = true): void {
    if (redraw) this.dirty = true;
    if (this.requested) return;
    this.requested = true;
    requestAnimationFrame(this.frame);
  }

  /** Drawn frames per second over the last `windowMs`. */
  fps(windowMs = 1000): number {
    const since = performance.now() - windowMs;
    return (this.stamps.filter((s) => s >= since).length * 1000) / windowMs;
  }

  /** Whether nodes are still moving on screen (the layout runs, or its last positions are being eased in). */
  running(): boolean {
    return this.layout.animating();
  }

  // `requested` stays set during the frame, so camera moves made while drawing do not schedule another frame.
  // A frame is drawn (and counted) only when the view changed or the nodes moved.
  private readonly frame = (now: number): void => {
    const t0 = performance.now();
    const moved = this.layout.step(now);
    const animating = this.layout.animating();
    if (!moved && !this.dirty) {
      this.requested = false;
      if (animating) this.request(false);
      return;
    }
    this.dirty = false;
    this.beforeDraw?.();
    this.renderer.draw({
      ctx: this.ctx,
      width: this.width,
      height: this.height,
      dpr: this.dpr,
      transform: this.transform,
      model: this.model,
      view: this.view,
      colors: this.colors,
    });
    this.frameMs += (performance.now() - t0 - this.frameMs) * 0.1;
    this.frames++;
    this.stamps.push(now);
    while (this.stamps.length > 0 && (this.stamps[0] ?? 0) < now - 3000) this.stamps.shift();
    this.requested = false;
    if (animating) this.request(false);
  };

  private resize(): void {
    const box = (this.canvas.parentElement ?? this.canvas).getBoundingClientRect();
    this.dpr = window.devicePixelRatio || 1;
    this.width = Math.max(1, Math.floor(box.width));
    this.height = Math.max(1, Math.floor(box.height));
    this.canvas.width = Math.floor(this.width * this.dpr);
    this.canvas.height = Math.floor(this.height * this.dpr);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${this.height}px`;
    this.request();
  }
}
