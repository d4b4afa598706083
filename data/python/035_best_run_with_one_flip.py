# difficulty: Hard
# topic: dynamic-programming
def best_run_with_one_flip(gains: List[int]) -> int:
    plain = gains[0]
    flipped = max(gains[0], -gains[0])
    best = flipped
    for g in gains[1:]:
        plain, flipped = max(plain + g, g), max(flipped + g, plain - g, -g, g)
        best = max(best, flipped)
    return best
