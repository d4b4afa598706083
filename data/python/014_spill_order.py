# difficulty: Easy
# topic: monotonic-stack
def spill_order(stream: List[int]) -> List[int]:
    pile = []
    spilled = []
    for x in stream:
        while pile and pile[-1] > x:
            spilled.append(pile.pop())
        pile.append(x)
    while pile:
        spilled.append(pile.pop())
    return spilled
