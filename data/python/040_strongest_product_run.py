# difficulty: Medium
# topic: dynamic-programming
def strongest_product_run(factors: List[int]) -> int:
    small = [f % 7 - 3 for f in factors]
    hi = lo = best = small[0]
    for x in small[1:]:
        if x < 0:
            hi, lo = lo, hi
        hi = max(x, hi * x)
        lo = min(x, lo * x)
        best = max(best, hi)
    return best
