# difficulty: Medium
# topic: simulation
def knockout_round_totals(entrants: List[int]) -> List[int]:
    field = entrants[:]
    totals = []
    while len(field) > 1:
        nxt = []
        for i in range(0, len(field) - 1, 2):
            a, b = field[i], field[i + 1]
            nxt.append(a if abs(a) >= abs(b) else b)
        if len(field) % 2 == 1:
            nxt.append(field[-1])
        totals.append(sum(nxt))
        field = nxt
    return totals
