"""The boundary-map network (PyTorch). detect_map.c runs the same graph in integers; export.py
folds the batch norms into the convolutions, quantizes the network (quantize.py) and writes it
as Sources/CImageCore/detect_model.c.

Input: 3 x h x w (Y, Cb, Cr of the working image, (v - 128) / 64). Output: two channels of
logits at ceil(h/2) x ceil(w/2): after a sigmoid, the probability that a cell lies on a page
boundary (the boundary map), and the probability that it lies inside a page (the inside map,
which the quad search uses to tell a page from a contour of the scene).

    L0  conv3x3 s2   3 -> C0    \
    L1  conv3x3      C0 -> C0    | skip S1 (map resolution)
    L2  conv3x3 s2   C0 -> C1
    L3  conv3x3      C1 -> C1    | skip S2 (1/4)
    L4  conv3x3 s2   C1 -> C2
    L5  conv3x3 d2   C2 -> C2    (1/8, dilated: context of most of the image)
    L6  conv3x3 d4   C2 -> C2
    L7  conv1x1      C2 -> C1, nearest x2 (cropped to S2), + S2
    L8  conv3x3      C1 -> C1
    L9  conv1x1      C1 -> C0, nearest x2 (cropped to S1), + S1
    L10 conv3x3      C0 -> C0
    L11 conv1x1      C0 -> 2     logits (boundary, inside)
Every layer but L11 is followed by a ReLU (L7 and L9 after the addition).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# C2 48 rather than 32: the 1/8-resolution part (the context) is the cheapest to widen; trained
# through the same four stages it lowered the validation loss 0.117 -> 0.111 and found more
# pages on the hard validation scenes (README, "Page detection"), for about 1 ms per 12 MP photo.
# C1 32 rather than 20 (the 1/4-resolution part): validation loss 0.111 -> 0.105, and 2.5 and
# 4.6 more points on the proxy split's plain and hard photos (a package never trained on),
# beyond what the training's seed moves them; about 0.5 ms per 12 MP photo after the AVX2
# kernels were specialised.
# C0 16 rather than 12 (the map's resolution, 1/2): with seed 15 it found 67 more pages than
# 12 channels with the same seed on the design splits (seed 14: 26 fewer than the network of 12
# channels it was paired with), held-out 88.8 -> 90.2 % (89.2 % once the quad search's polish
# was removed); about 0.5 ms per 12 MP photo (README).
C0, C1, C2 = 16, 32, 48
NOUT = 2  # output channels: boundary, inside

# (name, in, out, kernel, stride, dilation); the order export.py writes and the C core runs.
LAYERS = [
    ("l0", 3, C0, 3, 2, 1), ("l1", C0, C0, 3, 1, 1),
    ("l2", C0, C1, 3, 2, 1), ("l3", C1, C1, 3, 1, 1),
    ("l4", C1, C2, 3, 2, 1), ("l5", C2, C2, 3, 1, 2), ("l6", C2, C2, 3, 1, 4),
    ("l7", C2, C1, 1, 1, 1), ("l8", C1, C1, 3, 1, 1),
    ("l9", C1, C0, 1, 1, 1), ("l10", C0, C0, 3, 1, 1),
    ("l11", C0, NOUT, 1, 1, 1),
]


class ConvBN(nn.Module):
    def __init__(self, cin, cout, k, s, d, bn=True):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride=s, padding=d * (k // 2), dilation=d, bias=not bn)
        self.bn = nn.BatchNorm2d(cout) if bn else None

    def forward(self, x):
        x = self.conv(x)
        return self.bn(x) if self.bn is not None else x

    def folded(self):
        """(weight, bias) with the batch norm folded in (eval statistics)."""
        w = self.conv.weight.detach().double()
        if self.bn is None:
            return w, self.conv.bias.detach().double()
        bn = self.bn
        scale = bn.weight.detach().double() / torch.sqrt(bn.running_var.detach().double() + bn.eps)
        return w * scale[:, None, None, None], bn.bias.detach().double() - bn.running_mean.detach().double() * scale


def up_to(x, like):
    x = x.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)
    return x[:, :, : like.shape[2], : like.shape[3]]


class BoundaryNet(nn.Module):
    """nout = 1: the boundary output alone (the first training stages of `make train-detector`)."""

    def __init__(self, nout=NOUT):
        super().__init__()
        self.layers = nn.ModuleDict({n: ConvBN(i, nout if n == "l11" else o, k, s, d, bn=(n != "l11"))
                                     for n, i, o, k, s, d in LAYERS})

    def forward(self, x):
        L = self.layers
        a = F.relu(L["l0"](x))
        s1 = F.relu(L["l1"](a))
        a = F.relu(L["l2"](s1))
        s2 = F.relu(L["l3"](a))
        a = F.relu(L["l4"](s2))
        a = F.relu(L["l5"](a))
        a = F.relu(L["l6"](a))
        a = F.relu(up_to(L["l7"](a), s2) + s2)
        a = F.relu(L["l8"](a))
        a = F.relu(up_to(L["l9"](a), s1) + s1)
        a = F.relu(L["l10"](a))
        return L["l11"](a)


class FoldedNet(nn.Module):
    """The same graph with folded (weight, bias) pairs in float32: what quantize.py quantizes."""

    def __init__(self, net):
        super().__init__()
        self.params = {}
        for n, i, o, k, s, d in LAYERS:
            w, b = net.layers[n].folded()
            self.params[n] = (w.float(), b.float(), s, d, k)

    def conv(self, n, x):
        w, b, s, d, k = self.params[n]
        return F.conv2d(x, w, b, stride=s, padding=d * (k // 2), dilation=d)

    def forward(self, x):
        c = self.conv
        a = F.relu(c("l0", x))
        s1 = F.relu(c("l1", a))
        a = F.relu(c("l2", s1))
        s2 = F.relu(c("l3", a))
        a = F.relu(c("l4", s2))
        a = F.relu(c("l5", a))
        a = F.relu(c("l6", a))
        a = F.relu(up_to(c("l7", a), s2) + s2)
        a = F.relu(c("l8", a))
        a = F.relu(up_to(c("l9", a), s1) + s1)
        a = F.relu(c("l10", a))
        return c("l11", a)
