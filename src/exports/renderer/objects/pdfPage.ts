import type { Draw } from '../drawContext.js';
import { assetKey } from '../renderModel.js';
import { drawAsset } from './image.js';

/** `pdf-page`: one page of a PDF asset (`data.page`, from 1), as its image is drawn. */
export const drawPdfPage: Draw = (object, context) => {
  const { asset_id: assetId, page } = object.data;
  const valid = typeof assetId === 'string' && typeof page === 'number' && Number.isInteger(page) && page >= 1;
  return drawAsset(object, valid ? assetKey(assetId, page) : null, context);
};
