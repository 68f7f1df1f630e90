"""The page-right rule's distance, in one place for the scripts (bench detect-eval's in Swift):
the largest corner distance between a found quad and the labelled one, in the best cyclic
order. A page is right when it is at most 1.5 % of the image diagonal. Standard library only
(scan_eval.py runs without the detector's venv)."""
import math


def worst_corner_error(corners, truth):
    """The largest corner distance in the best cyclic order (as bench detect-eval's)."""
    return min(max(math.dist(corners[(i + s) % 4], truth[i]) for i in range(4)) for s in range(4))
