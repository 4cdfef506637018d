"""Detectors checked as their packages use them: a scene the float model finds objects in,
the raw outputs decoded into boxes by the package's own post-processing (rewritten here
in numpy from the package's Python, read in its wheel), and the boxes of two engines
compared.

- `yolov8` (nudenet 3.4.2, `nudenet/nudenet.py`, `_postprocess`): output [1, 4 + classes,
  anchors] of centre x, centre y, width, height and class scores; a row counts when its
  best class score is >= 0.2; boxes to top-left form, clipped to the image;
  `cv2.dnn.NMSBoxes(boxes, scores, 0.25, 0.45)`: scores over 0.25, greedy by score,
  class-agnostic, a box dropped when its IoU with a kept one is over 0.45.
- `yolox` (ddddocr 1.6.1, `ddddocr/core/detection_engine.py`, `get_bbox`): output
  [1, anchors, 5 + classes] on the 8/16/32-stride grids of a 416x416 input; centres are
  (offset + cell) x stride, sizes exp(v) x stride; score = objectness x class score,
  class-agnostic argmax, kept over 0.1; greedy NMS with ddddocr's "+1" pixel areas, a box
  dropped when its IoU is over 0.45.

The rule for two engines' boxes (`compare`): every box of one whose score is at least
`MARGIN` over the package's threshold has a box of the other with the same class and IoU
>= `MIN_IOU`. A dynamic form's run-time scales move with the last bit of its input, and
its boxes with them: there the IoU bound is 1 - 2 x (1 - the worst IoU between ONNX
Runtime's boxes and its own boxes when every input element moves by one ulp), when that
is lower (run.py measures it; ddddocr's detector: 0.904, so 0.81), as the relative L2
bound of dynamic forms is twice ONNX Runtime's own one-ulp sensitivity. Boxes nearer the threshold may be in one list only: the threshold is a cut
through a continuum, and quantization noise moves a score across it without the model
having found anything different.

Scenes (`scene`), made so that nothing is committed but code:
- nudenet: a drawn face (skin-toned ellipse, hair, eyes, brows, nose, mouth, neck,
  shoulders) on a plain background, blurred: the float model finds FACE_FEMALE (about
  0.8) in it;
- ddddocr: the "D" glyph of the logo that ddddocr's wheel ships (`ddddocr/logo.png`,
  read and scaled with Pillow), pasted four times
  in four colours at captcha-character size on a noisy light background: the float
  model finds the four characters.
"""

import io
import os
import zipfile

import numpy as np
from PIL import Image

MIN_IOU = 0.9
MARGIN = 0.05


# ---- post-processing, as the packages do it ----

def decode_yolov8(output, size=320):
    """nudenet's `_postprocess` for an unpadded size x size input: [(class, score, x1, y1,
    x2, y2)] after NMS, best first."""
    rows = np.transpose(np.squeeze(output[0]))
    scores = rows[:, 4:]
    best = scores.max(axis=1)
    keep = best >= 0.2
    boxes, classes, best = rows[keep, :4].astype(np.float64), scores[keep].argmax(axis=1), best[keep]
    x = np.clip(boxes[:, 0] - boxes[:, 2] / 2, 0, size)
    y = np.clip(boxes[:, 1] - boxes[:, 3] / 2, 0, size)
    w = np.minimum(boxes[:, 2], size - x)
    h = np.minimum(boxes[:, 3], size - y)
    xyxy = np.stack([x, y, x + w, y + h], axis=1)
    chosen = nms(xyxy, best, score_threshold=0.25, iou_threshold=0.45, plus_one=False)
    return [(int(classes[i]), float(best[i]), *xyxy[i].tolist()) for i in chosen]


def decode_yolox(output, size=416):
    """ddddocr's `get_bbox` for a size x size input (ratio 1): [(class, score, x1, y1, x2,
    y2)] after NMS, best first."""
    pred = np.array(output[0], np.float64)
    grids, strides = [], []
    for stride in (8, 16, 32):
        n = size // stride
        xv, yv = np.meshgrid(np.arange(n), np.arange(n))
        grids.append(np.stack((xv, yv), 2).reshape(-1, 2))
        strides.append(np.full((n * n, 1), stride))
    grids, strides = np.concatenate(grids), np.concatenate(strides)
    centre = (pred[:, :2] + grids) * strides
    extent = np.exp(pred[:, 2:4]) * strides
    xyxy = np.concatenate([centre - extent / 2, centre + extent / 2], axis=1)
    scores = pred[:, 4:5] * pred[:, 5:]
    classes = scores.argmax(axis=1)
    best = scores[np.arange(len(classes)), classes]
    keep = best > 0.1
    xyxy, best, classes = xyxy[keep], best[keep], classes[keep]
    chosen = nms(xyxy, best, score_threshold=None, iou_threshold=0.45, plus_one=True)
    return [(int(classes[i]), float(best[i]), *xyxy[i].tolist()) for i in chosen]


DECODERS = {"yolov8": (decode_yolov8, 0.25), "yolox": (decode_yolox, 0.1)}


def nms(xyxy, scores, score_threshold, iou_threshold, plus_one):
    """Greedy non-maximum suppression, best score first: the indices kept."""
    order = np.argsort(-scores, kind="stable")
    if score_threshold is not None:
        order = order[scores[order] > score_threshold]
    kept = []
    while order.size:
        i = order[0]
        kept.append(int(i))
        ious = iou(xyxy[i], xyxy[order[1:]], plus_one)
        order = order[1:][ious <= iou_threshold]
    return kept


def iou(box, others, plus_one=False):
    extra = 1.0 if plus_one else 0.0
    others = np.atleast_2d(others)
    w = np.maximum(0.0, np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + extra)
    h = np.maximum(0.0, np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + extra)
    inter = w * h
    area = (box[2] - box[0] + extra) * (box[3] - box[1] + extra)
    areas = (others[:, 2] - others[:, 0] + extra) * (others[:, 3] - others[:, 1] + extra)
    return inter / np.maximum(area + areas - inter, 1e-12)


def compare(got, want, threshold, min_iou=MIN_IOU):
    """Problems (empty when none) with `got`'s boxes against `want`'s, by the rule above."""
    problems = []
    for mine, theirs, who in ((want, got, "qlower"), (got, want, "ONNX Runtime")):
        for cls, score, *box in mine:
            if score < threshold + MARGIN:
                continue
            same = [b for c, _, *b in theirs if c == cls]
            best = float(iou(np.array(box), np.array(same)).max()) if same else 0.0
            if best < min_iou:
                problems.append(f"{who} has no class-{cls} box with IoU >= {min_iou:.2f} for the one at "
                                f"[{', '.join(f'{v:.0f}' for v in box)}] (score {score:.2f}; best IoU {best:.2f})")
    return problems


def ulp_iou(boxes, nudged_boxes):
    """The worst IoU between each box and the best same-class box after a one-ulp nudge
    of the input (1.0 when there are no boxes)."""
    worst = 1.0
    for cls, _, *box in boxes:
        same = [b for c, _, *b in nudged_boxes if c == cls]
        worst = min(worst, float(iou(np.array(box), np.array(same)).max()) if same else 0.0)
    return worst


def describe(boxes):
    return ", ".join(f"class {c} {s:.2f}" for c, s, *_ in boxes[:5]) or "none"


# ---- scenes ----

def scene(kind, cache):
    """The scene input of a detector kind, [1, 3, H, W] float32 as its package feeds it."""
    if kind == "yolov8":
        return face_scene()
    if kind == "yolox":
        return glyph_scene(cache)
    raise ValueError(f"unknown detector {kind!r}")


def face_scene(size=320):
    """RGB in [0, 1] (nudenet divides by 255 and swaps to RGB)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)

    def ellipse(cx, cy, rx, ry):
        return ((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2 <= 1

    cx, cy, r = 160.0, 140.0, 60.0
    skin, hair = np.array([0.95, 0.8, 0.7]), np.array([0.25, 0.15, 0.1])
    img = np.empty((size, size, 3))
    img[:] = (0.3, 0.5, 0.7)
    img[ellipse(cx, cy - 0.25 * r, 1.05 * r, 1.15 * r)] = hair
    img[ellipse(cx, cy, 0.8 * r, 1.05 * r)] = skin
    for side in (-1, 1):
        eye = cx + side * 0.32 * r
        img[ellipse(eye, cy - 0.2 * r, 0.17 * r, 0.08 * r)] = (1.0, 1.0, 1.0)
        img[ellipse(eye, cy - 0.2 * r, 0.07 * r, 0.07 * r)] = (0.2, 0.12, 0.08)
        img[ellipse(eye, cy - 0.4 * r, 0.2 * r, 0.04 * r)] = hair
    img[ellipse(cx, cy + 0.08 * r, 0.08 * r, 0.2 * r)] = skin * 0.85
    img[ellipse(cx, cy + 0.5 * r, 0.3 * r, 0.08 * r)] = (0.7, 0.3, 0.3)
    img[(np.abs(xx - cx) < 0.35 * r) & (yy > cy + 0.8 * r) & (yy < cy + 1.6 * r)] = skin
    img[ellipse(cx, cy + 2.6 * r, 2.2 * r, 1.2 * r)] = (0.2, 0.3, 0.6)
    img = box_blur(img, 4)
    return img.transpose(2, 0, 1)[None].astype(np.float32)


def glyph_scene(cache, size=416):
    """BGR in [0, 255] (ddddocr feeds cv2's BGR bytes as float, unscaled)."""
    wheels = os.path.join(cache, "wheels")
    wheel = next(os.path.join(wheels, f) for f in sorted(os.listdir(wheels))
                 if f.lower().startswith("ddddocr-1.6.1-") and f.endswith(".whl"))
    with zipfile.ZipFile(wheel) as z:
        logo = Image.open(io.BytesIO(z.read("ddddocr/logo.png"))).convert("RGBA")
    alpha = logo.getchannel("A").crop(logo.getchannel("A").getbbox())
    height = 40
    width = round(height * alpha.width / alpha.height)
    glyph = alpha.convert("F").resize((width, height), Image.Resampling.BILINEAR)
    glyph = np.asarray(glyph, np.float64)[..., None] / 255
    rng = np.random.default_rng(0)
    canvas = np.full((size, size, 3), 230.0) + rng.normal(0.0, 8.0, (size, size, 3))
    places = [(40, 50), (60, 230), (220, 90), (250, 260)]
    colours = [(200, 70, 70), (40, 140, 40), (60, 60, 200), (20, 20, 20)]
    h, w = glyph.shape[:2]
    for (y, x), colour in zip(places, colours):
        canvas[y:y + h, x:x + w] = canvas[y:y + h, x:x + w] * (1 - glyph) + np.array(colour) * glyph
    pixels = np.clip(np.round(canvas), 0, 255).astype(np.uint8)
    return pixels.transpose(2, 0, 1)[None].astype(np.float32)


def box_blur(img, k):
    """Each pixel the mean of the (2k+1) x (2k+1) square around it (edges repeated)."""
    for axis in (0, 1):
        n = img.shape[axis]
        widths = [(k, k) if a == axis else (0, 0) for a in range(img.ndim)]
        sums = np.cumsum(np.pad(img, widths, mode="edge"), axis=axis)
        sums = np.concatenate([np.zeros_like(sums.take([0], axis=axis)), sums], axis=axis)
        img = (sums.take(np.arange(2 * k + 1, 2 * k + 1 + n), axis=axis)
               - sums.take(np.arange(n), axis=axis)) / (2 * k + 1)
    return img
