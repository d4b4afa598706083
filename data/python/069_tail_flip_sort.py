# difficulty: Hard
# topic: simulation
def tail_flip_sort(stack: List[int]) -> List[int]:
    def flip_tail(cards, start):
        lo, hi = start, len(cards) - 1
        while lo < hi:
            cards[lo], cards[hi] = cards[hi], cards[lo]
            lo += 1
            hi -= 1

    flips = []
    n = len(stack)
    for pos in range(n):
        smallest = pos
        for j in range(pos + 1, n):
            if stack[j] < stack[smallest]:
                smallest = j
        if smallest != pos:
            flip_tail(stack, smallest)
            flip_tail(stack, pos)
            flips.append(smallest)
            flips.append(pos)
    return flips
