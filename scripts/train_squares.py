#!/usr/bin/env python3
"""Train the learned square reader (companion/vision/model.py) on cut renders and export it
as ONNX for OpenCV's dnn module (``make model``).

Input: the squares scripts/make_squares.py cut (training seeds 70000 on, validation 90000 on;
never the stranger benchmark's 50000-50199). One small convolutional network, four heads:
kind (empty / tile / back), letter (every tile set's letters and ``?`` for a blank), turn
(0/90/180/270; not learned from blanks, which show none) and token. While learning, each batch is
turned by random quarter turns (labels turned with it), its colours moved (channel gains,
brightness, contrast, channels swapped: a set of any colour) and noised. ``--augment wide``
gives each square its own augmentation instead: a random quarter turn, cut a little off
(shifted, sized, turned, sheared), lit by a lamp's hot spot or crossed by a shadow, its colours
moved (a colour mix, channels swapped, gains, brightness, contrast, gamma), blurred, noised and
sent through JPEG, with targets smoothed a little (0.05): tried with 2 epochs, it read worse
(docs/vision-model.md), so ``make model`` keeps the plain one. Afterwards one
temperature per head is fitted on the validation squares (Guo et al. 2017, temperature
scaling), so that the probabilities the reader reports are honest.

Fine-tuning (``--init DIR``, ``make model-alike``): the network of ``DIR/squares.onnx``
is loaded (:func:`init_from_onnx`: the export folded each BatchNorm into its convolution, so the
folded weights go into the convolutions and each BatchNorm becomes the identity, kept so
while learning: its statistics frozen, its scale and shift learned), checked to give the ONNX
file's outputs within 1e-4, then trained a few epochs at a lower learning rate on new squares
(the look-alikes of ``make_squares.py --look-alikes``). The network's size does not change.

Reproducible: fixed seeds, a fixed thread count (``--threads``), deterministic kernels: the same
data gives the same weights within float tolerance.

    python scripts/train_squares.py --train build/squares/train_a.npz build/squares/train_b.npz \
        --val build/squares/val.npz --out companion/vision/data --epochs 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

try:
    import torch
    from torch import nn
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - the [train] extra is not installed
    print("train_squares.py needs PyTorch: `make model` installs the [train] extra", file=sys.stderr)
    raise SystemExit(2)

SEED = 20261127
# --augment wide: targets a little off the corners (0.05), so that the heads learn no certainty
# the renders cannot back (the validation's temperatures make the probabilities honest after).
LABEL_SMOOTHING = 0.05
MODEL_NAME = "squares"  # companion/vision/data/squares.onnx and squares.json


class SquareNet(nn.Module):
    """12-24-48-64 channels over 32, 16, 8, 4 pixels; a 96-wide embedding; four heads. About
    2.2 M multiply-adds a square: small enough for 225 squares a photo on a Pi's core."""

    def __init__(self, letters: int) -> None:
        super().__init__()

        def block(i: int, o: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU())

        self.features = nn.Sequential(
            block(3, 12), nn.MaxPool2d(2), block(12, 24), nn.MaxPool2d(2),
            block(24, 48), nn.MaxPool2d(2), block(48, 64),
        )
        self.embed = nn.Sequential(nn.Flatten(), nn.Linear(64 * 4 * 4, 96), nn.ReLU())
        self.kind = nn.Linear(96, 3)
        self.letter = nn.Linear(96, letters)
        self.turn = nn.Linear(96, 4)
        self.token = nn.Linear(96, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        e = self.embed(self.features(x))
        return self.kind(e), self.letter(e), self.turn(e), self.token(e), e


def init_from_onnx(model: SquareNet, path: Path) -> None:
    """``model`` (the same architecture) with the weights of an exported ``squares.onnx``. The
    export (eval mode) folded each BatchNorm into the convolution before it: the convolutions
    take the folded weights, each BatchNorm the identity (mean 0, variance 1 - eps, scale 1)
    with the folded bias as its shift."""
    import onnx
    from onnx import numpy_helper

    if not path.is_file():
        raise SystemExit(f"{path}: no such file (the network to fine-tune)")
    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    blocks = [m for m in model.features if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network has {len(blocks)}")
    with torch.no_grad():
        for node, block in zip(convs, blocks):
            conv, bn = block[0], block[1]
            w, b = weights[node.input[1]].copy(), weights[node.input[2]].copy()
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise SystemExit(f"{path}: a convolution of shape {w.shape}, the network's is {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
        for name, p in model.named_parameters():
            if not name.startswith("features."):
                if name not in weights or tuple(weights[name].shape) != tuple(p.shape):
                    raise SystemExit(f"{path}: no {name} of shape {tuple(p.shape)} (another network?)")
                p.copy_(torch.from_numpy(weights[name].copy()))


def freeze_batchnorm(model: nn.Module) -> None:
    """BatchNorms in eval mode (statistics frozen) while the rest learns: a fine-tuned network
    keeps the identity its BatchNorms were loaded as (their scale and shift still learn)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def onnx_outputs(path: Path, x: np.ndarray) -> list[np.ndarray]:
    """The exported network's kind, letter, turn and token logits for uint8 BGR squares."""
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(["kind", "letter", "turn", "token"], {"square": to_tensor(x).numpy()})


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    xs, ys, letters = [], [], None
    for p in paths:
        if not p.is_file():
            raise SystemExit(f"{p}: no such file (scripts/make_squares.py makes it)")
        with np.load(p) as d:
            xs.append(d["x"])
            ys.append(d["y"])
            names = [str(v) for v in d["letters"]]
        if letters is not None and names != letters:
            raise SystemExit(f"{p}: another letter list than the other files'")
        letters = names
    assert letters is not None
    return np.concatenate(xs), np.concatenate(ys).astype(np.int64), letters


def to_tensor(x: np.ndarray) -> torch.Tensor:
    """uint8 (N, H, W, 3) BGR -> float (N, 3, H, W) in 0..1, as the reader feeds OpenCV."""
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))).float().div_(255.0)


def _geometry(t: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """A cut a little off, as a found grid and a tile set off its square make it: shifted up to
    an eighth of the cut, sized +-10 %, turned +-6 degrees, sheared a little (a phone's slant)."""
    n = len(t)
    a = np.deg2rad(rng.uniform(-6, 6, n))
    s = rng.uniform(0.9, 1.1, n)
    sh = rng.uniform(-0.08, 0.08, n)
    theta = np.zeros((n, 2, 3))
    theta[:, 0, 0] = np.cos(a) / s
    theta[:, 0, 1] = -np.sin(a) / s + sh
    theta[:, 1, 0] = np.sin(a) / s
    theta[:, 1, 1] = np.cos(a) / s
    theta[:, :, 2] = rng.uniform(-0.25, 0.25, (n, 2))
    keep = rng.random(n) < 0.25  # a quarter as cut
    theta[keep] = [[1, 0, 0], [0, 1, 0]]
    grid = F.affine_grid(torch.from_numpy(theta).float(), list(t.shape), align_corners=False)
    return F.grid_sample(t, grid, mode="bilinear", padding_mode="border", align_corners=False)


def _light(t: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """A lamp's hot spot (a warm patch screened over the square, up to white) on a fifth of the
    squares, a shadow's edge across another fifth."""
    n, _, h, w = t.shape
    yy, xx = torch.meshgrid(torch.linspace(0, 1, h), torch.linspace(0, 1, w), indexing="ij")
    spot = torch.from_numpy(np.nonzero(rng.random(n) < 0.2)[0])
    m = len(spot)
    c = torch.from_numpy(rng.uniform(-0.3, 1.3, (m, 2, 1, 1))).float()
    r = torch.from_numpy(rng.uniform(0.25, 0.9, (m, 1, 1, 1))).float()
    blob = torch.exp(-((xx - c[:, 0:1]) ** 2 + (yy - c[:, 1:2]) ** 2) / (2 * r**2))
    tint = rng.uniform(0.75, 1.0, (m, 3, 1, 1))
    tint[:, 2] = 1.0  # red (BGR's last) fullest: a warm lamp
    lit = blob * torch.from_numpy(rng.uniform(0.3, 0.75, (m, 1, 1, 1)) * tint).float()
    t[spot] = 1 - (1 - t[spot]) * (1 - lit)
    shade = torch.from_numpy(np.nonzero(rng.random(n) < 0.2)[0])
    m = len(shade)
    ang = rng.uniform(0, 2 * np.pi, (m, 1, 1))
    d = torch.from_numpy(np.cos(ang)).float() * xx + torch.from_numpy(np.sin(ang)).float() * yy
    soft = torch.from_numpy(rng.uniform(0.02, 0.2, (m, 1, 1))).float()
    edge = torch.sigmoid((d - torch.from_numpy(rng.uniform(0.2, 0.8, (m, 1, 1))).float()) / soft)
    dark = torch.from_numpy(rng.uniform(0.2, 0.55, (m, 1, 1))).float()
    t[shade] = t[shade] * (1 - dark * edge).unsqueeze(1)
    return t


def _colour(t: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Any colour of set, board and light: channels swapped (0.3), a colour mix near the identity
    (0.4), grey (0.05), channel gains, brightness, contrast and gamma (one 3 x 3 mix a square)."""
    n = len(t)
    mix = np.eye(3)[None] + rng.normal(0, 0.15, (n, 3, 3)) * (rng.random((n, 1, 1)) < 0.4)
    swap = np.nonzero(rng.random(n) < 0.3)[0]
    mix[swap] = np.stack([np.eye(3)[rng.permutation(3)] for _ in swap]) @ mix[swap] if len(swap) else mix[swap]
    mix[rng.random(n) < 0.05] = 1.0 / 3.0
    mix *= rng.uniform(0.75, 1.25, (n, 3, 1))  # channel gains
    t = torch.einsum("nij,njhw->nihw", torch.from_numpy(mix).float(), t)
    bias = torch.from_numpy(rng.uniform(-0.12, 0.12, (n, 1, 1, 1))).float()
    contrast = torch.from_numpy(rng.uniform(0.7, 1.25, (n, 1, 1, 1))).float()
    mean = t.mean(dim=(1, 2, 3), keepdim=True)
    t = ((t - mean) * contrast + mean + bias).clamp_(0, 1)
    bent = torch.from_numpy(np.nonzero(rng.random(n) < 0.5)[0])
    gamma = torch.from_numpy(rng.uniform(0.75, 1.33, (len(bent), 1, 1, 1))).float()
    t[bent] = t[bent] ** gamma
    return t


def _blur(t: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Out of focus or from further away: 40 % shrunk (to 14-28 pixels) and grown back."""
    n, _, h, _ = t.shape
    sizes = np.where(rng.random(n) < 0.4, rng.integers(14, 29, n), h)
    for size in np.unique(sizes[sizes < h]):
        sel = torch.from_numpy(np.nonzero(sizes == size)[0])
        small = F.interpolate(t[sel], size=(int(size), int(size)), mode="area")
        t[sel] = F.interpolate(small, size=(h, h), mode="bilinear", align_corners=False)
    return t


def _jpeg(t: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """A third of the squares through JPEG at quality 30-90 (a phone's, a webcam's)."""
    x = (t.numpy().transpose(0, 2, 3, 1) * 255 + 0.5).astype(np.uint8)
    for i in np.nonzero(rng.random(len(x)) < 0.33)[0]:
        ok, buf = cv2.imencode(".jpg", x[i], [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 91))])
        x[i] = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return to_tensor(x)


def _quarter_turns(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Copies of ``x`` and ``y``, each square turned by a random quarter turn, its turn label with it."""
    x = x.copy()
    y = y.copy()
    k = rng.integers(0, 4, len(x))
    for q in range(1, 4):
        sel = k == q
        # np.rot90 with k=-q turns the picture clockwise q quarters: the tile's turn grows by q.
        x[sel] = np.rot90(x[sel], -q, axes=(1, 2))
        tile = sel & (y[:, 2] >= 0)
        y[tile, 2] = (y[tile, 2] + q) % 4
    return x, y


def augment_wide(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[torch.Tensor, np.ndarray]:
    """Quarter turns (the turn label turned with them), then in the camera's order: the cut a
    little off, a lamp's spot or a shadow, colours, blur, noise, JPEG. The renders already vary
    all of these per scene; here each square gets its own, far wider than any one table."""
    x, y = _quarter_turns(x, y, rng)
    t = _blur(_colour(_light(_geometry(to_tensor(x), rng), rng), rng), rng)
    noise = torch.from_numpy(rng.standard_normal(t.shape, np.float32) * rng.uniform(0, 0.04, (len(x), 1, 1, 1)).astype(np.float32))
    return _jpeg((t + noise).clamp_(0, 1), rng), y


def augment_plain(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[torch.Tensor, np.ndarray]:
    """Quarter turns (the turn label turned with them), colours and noise (``make model``'s)."""
    x, y = _quarter_turns(x, y, rng)
    t = to_tensor(x)
    n = len(x)
    perm = rng.random(n) < 0.3
    for i in np.nonzero(perm)[0]:
        t[i] = t[i, torch.from_numpy(rng.permutation(3))]
    gain = torch.from_numpy(rng.uniform(0.75, 1.25, (n, 3, 1, 1))).float()
    bias = torch.from_numpy(rng.uniform(-0.12, 0.12, (n, 1, 1, 1))).float()
    noise = torch.from_numpy(rng.normal(0, 1, t.shape) * rng.uniform(0, 0.04, (n, 1, 1, 1))).float()
    t = (t * gain + bias + noise).clamp_(0, 1)
    return t, y


def losses(out: tuple[torch.Tensor, ...], y: torch.Tensor, ls: float = 0.0) -> torch.Tensor:
    """The four heads' cross-entropies (``ls``: label smoothing)."""
    kind, letter, turn, token, _ = out
    loss = F.cross_entropy(kind, y[:, 0], label_smoothing=ls) + F.cross_entropy(token, y[:, 3], label_smoothing=ls)
    tile = y[:, 1] >= 0
    if tile.any():
        loss = loss + F.cross_entropy(letter[tile], y[tile, 1], label_smoothing=ls)
    turned = y[:, 2] >= 0
    if turned.any():
        loss = loss + F.cross_entropy(turn[turned], y[turned, 2], label_smoothing=ls)
    return loss


def predict(model: SquareNet, x: np.ndarray) -> list[np.ndarray]:
    model.eval()
    outs: list[list[np.ndarray]] = [[], [], [], []]
    with torch.no_grad():
        for i in range(0, len(x), 1024):
            o = model(to_tensor(x[i : i + 1024]))
            for j in range(4):
                outs[j].append(o[j].numpy())
    return [np.concatenate(o) for o in outs]


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature that minimises the labels' negative log-likelihood (a 1-D search)."""
    lg = torch.from_numpy(logits).double()
    lb = torch.from_numpy(labels)
    best = (float("inf"), 1.0)
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 200)):
        nll = float(F.cross_entropy(lg / t, lb))
        best = min(best, (nll, float(t)))
    return best[1]


def masks(y: np.ndarray) -> dict[str, np.ndarray]:
    return {"kind": np.ones(len(y), bool), "letter": y[:, 1] >= 0, "turn": y[:, 2] >= 0, "token": np.ones(len(y), bool)}


COLUMN = {"kind": 0, "letter": 1, "turn": 2, "token": 3}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=Path, nargs="+", required=True)
    ap.add_argument("--val", type=Path, nargs="+", required=True,
                    help="validation squares (temperatures; errors reported per file)")
    ap.add_argument("--out", type=Path, required=True, help="directory for squares.onnx and squares.json")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--limit", type=int, default=0, help="train on the first N squares only (a quick check)")
    ap.add_argument("--augment", choices=("plain", "wide"), default="plain",
                    help="plain (make model's: turns, colours, noise) or wide (each square its own cut, light, "
                         "colour mix, blur, noise, JPEG, and label smoothing; docs/vision-model.md: not yet better)")
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune the network of DIR/squares.onnx (its size) instead of training a new one")
    ap.add_argument("--lr", type=float, default=3e-3,
                    help="peak learning rate (make model: 3e-3; make model-alike's fine-tune: 5e-4)")
    ap.add_argument("--threads", type=int, default=1,
                    help="PyTorch's threads (the same count gives the same weights; make model uses 2)")
    a = ap.parse_args(argv)
    torch.manual_seed(SEED)
    torch.set_num_threads(a.threads)
    cv2.setNumThreads(1)
    torch.use_deterministic_algorithms(True)
    if a.epochs <= 0 or a.batch <= 0 or a.lr <= 0:
        raise SystemExit("--epochs, --batch and --lr must be positive")
    x, y, letters = load(a.train)
    vals = []
    for v in a.val:
        vx, vy, vletters = load([v])
        if vletters != letters:
            raise SystemExit(f"{v}: validation and training squares name other letters")
        vals.append((v, vx, vy))
    vx = np.concatenate([v[1] for v in vals])
    vy = np.concatenate([v[2] for v in vals])
    if a.limit:
        x, y = x[: a.limit], y[: a.limit]
    rng = np.random.default_rng(SEED)
    augment, smoothing = (augment_wide, LABEL_SMOOTHING) if a.augment == "wide" else (augment_plain, 0.0)
    model = SquareNet(len(letters))
    if a.init is not None:
        onnx_file = a.init / f"{MODEL_NAME}.onnx"
        init_from_onnx(model, onnx_file)
        check = vx[:512]
        ours = predict(model, check)
        diff = max(float(np.max(np.abs(o - r))) for o, r in zip(ours, onnx_outputs(onnx_file, check)))
        print(f"{onnx_file}: loaded; its outputs on {len(check)} validation squares within {diff:.2e} of the file's")
        if diff > 1e-4:
            raise SystemExit(f"{onnx_file}: the loaded network differs from the file by {diff:.2e} (> 1e-4)")
        report(model, vals, "before")
    steps = a.epochs * ((len(x) + a.batch - 1) // a.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.15)
    t0 = time.perf_counter()
    for epoch in range(a.epochs):
        model.train()
        if a.init is not None:
            freeze_batchnorm(model)
        order = rng.permutation(len(x))
        total = 0.0
        for i in range(0, len(x), a.batch):
            idx = np.sort(order[i : i + a.batch])
            bx, by = augment(x[idx], y[idx], rng)
            loss = losses(model(bx), torch.from_numpy(by), smoothing)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        report(model, vals, f"epoch {epoch + 1}/{a.epochs}: loss {total / len(x):.4f}, "
               f"{time.perf_counter() - t0:.0f} s;")
    logits = predict(model, vx)
    temps = {h: fit_temperature(logits[j][masks(vy)[h]], vy[masks(vy)[h], COLUMN[h]]) for j, h in enumerate(COLUMN)}
    print("temperatures: " + ", ".join(f"{h} {t:.3f}" for h, t in temps.items()))
    info = {"train_squares": int(len(x)), "validation_squares": int(len(vx)), "epochs": a.epochs, "seed": SEED}
    if a.init is not None:
        base = json.loads((a.init / f"{MODEL_NAME}.json").read_text()) if (a.init / f"{MODEL_NAME}.json").is_file() else {}
        info["fine_tuned_from"] = {k: base[k] for k in ("train_squares", "validation_squares", "epochs", "seed") if k in base}
        info["learning_rate"] = a.lr
    export(model, a.out, letters, temps, info)
    return 0


def report(model: SquareNet, vals: list[tuple[Path, np.ndarray, np.ndarray]], head: str) -> None:
    """Each validation file's error per head (a fine-tune must not forget the plain squares)."""
    for path, vx, vy in vals:
        logits = predict(model, vx)
        m = masks(vy)
        errs = {h: float(np.mean(logits[j][m[h]].argmax(1) != vy[m[h], COLUMN[h]])) for j, h in enumerate(COLUMN)}
        print(f"{head} {path.name} errors " + ", ".join(f"{h} {100 * e:.2f} %" for h, e in errs.items()), flush=True)


def export(model: SquareNet, out: Path, letters: list[str], temps: dict[str, float], info: dict) -> None:
    """squares.onnx (opset 11: OpenCV 4.x's dnn reads it) and squares.json (classes, temperatures)."""
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 32, 32)
    torch.onnx.export(
        model, (dummy,), str(out / f"{MODEL_NAME}.onnx"), dynamo=False, opset_version=11,
        input_names=["square"], output_names=["kind", "letter", "turn", "token", "embedding"],
        dynamic_axes={"square": {0: "n"}, "kind": {0: "n"}, "letter": {0: "n"}, "turn": {0: "n"},
                      "token": {0: "n"}, "embedding": {0: "n"}},
    )
    meta = {"letters": letters, "temperatures": temps, **info}
    (out / f"{MODEL_NAME}.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n")
    print(f"{out / (MODEL_NAME + '.onnx')}: {(out / (MODEL_NAME + '.onnx')).stat().st_size} bytes")


if __name__ == "__main__":
    raise SystemExit(main())
