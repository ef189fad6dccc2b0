import { concat, element, EMPTY, formatNumber, text, type Markup } from '../escape.js';
import type { Draw, DrawContext } from '../drawContext.js';
import { assetKey, type RenderObject, type ResolvedAsset } from '../renderModel.js';
import { MUTED, textBox } from './textBox.js';

/**
 * Where pixels may come from: an image `data:` URI (a standalone SVG), an `asset:` name the
 * rasterizer resolves, or an http(s) URL. Anything else (a `javascript:` URL, an SVG `data:`
 * URI) draws the placeholder.
 */
const SAFE_HREF = /^(?:data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]*={0,2}|asset:[A-Za-z0-9._~:@#/-]{1,300}|https?:\/\/[^\s"'<>\\]{1,2000})$/;
const ALT_LIMIT = 500;

/** `image`: the asset's pixels, cropped by `data.crop`, fitted in the object's box. */
export const drawImage: Draw = (object, context) => drawAsset(object, typeof object.data.asset_id === 'string' ? assetKey(object.data.asset_id) : null, context);

/**
 * The asset under `key` in a nested `<svg>` whose viewBox is the crop (source pixels), fitted
 * with `xMidYMid meet` as the client fits it; a missing or unusable asset draws the placeholder.
 */
export function drawAsset(object: RenderObject, key: string | null, context: DrawContext): Markup {
  const asset = key === null ? undefined : context.assets.get(key);
  if (!asset || !SAFE_HREF.test(asset.href) || !(asset.width > 0 && asset.height > 0)) return unavailable(object, context);
  const crop = cropOf(object.data.crop) ?? { x: 0, y: 0, width: asset.width, height: asset.height };
  const alt = typeof object.data.alt === 'string' && object.data.alt !== '' ? element('title', {}, text(object.data.alt.slice(0, ALT_LIMIT))) : EMPTY;
  return element(
    'svg',
    { width: object.width, height: object.height, viewBox: [crop.x, crop.y, crop.width, crop.height].map(formatNumber).join(' '), preserveAspectRatio: 'xMidYMid meet' },
    alt,
    element('image', { width: asset.width, height: asset.height, href: asset.href, preserveAspectRatio: 'none' }),
  );
}

/** What shows for an asset that is deleted, not visible to the viewer, or not resolved. */
function unavailable(object: RenderObject, { metrics }: DrawContext): Markup {
  return concat([
    element('rect', { width: object.width, height: object.height, rx: 4, fill: '#f1f5f9', stroke: '#94a3b8', 'stroke-width': 1.5, 'stroke-dasharray': '6 4' }),
    textBox('Image unavailable', object, { top: 0, padding: 10, fontSize: 14, align: 'center', fill: MUTED }, metrics),
  ]);
}

function cropOf(value: unknown): Pick<ResolvedAsset, 'width' | 'height'> & { x: number; y: number } | null {
  if (!value || typeof value !== 'object') return null;
  const { x, y, width, height } = value as Record<string, unknown>;
  const finite = [x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n));
  return finite && (width as number) > 0 && (height as number) > 0 ? { x: x as number, y: y as number, width: width as number, height: height as number } : null;
}
