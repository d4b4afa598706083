# difficulty: Medium
# topic: simulation
def bubble_pass_swaps(deck: List[int]) -> int:
    cards = deck[:]
    swaps = 0
    passes = 0
    swapped = True
    while swapped:
        swapped = False
        for i in range(len(cards) - 1 - passes):
            if cards[i] > cards[i + 1]:
                cards[i], cards[i + 1] = cards[i + 1], cards[i]
                swaps += 1
                swapped = True
        passes += 1
    return swaps * 3 + passes
