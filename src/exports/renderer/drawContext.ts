import type { Markup } from './escape.js';
import type { RenderObject, ResolvedAsset } from './renderModel.js';
import type { FontMetrics } from './textLayout.js';

/** What a drawing may consult besides its object: nothing that does I/O. */
export interface DrawContext {
  assets: ReadonlyMap<string, ResolvedAsset>;
  metrics: FontMetrics;
}

/** An object's shapes, in its own coordinates (the caller places them at its position). */
export type Draw = (object: RenderObject, context: DrawContext) => Markup;
