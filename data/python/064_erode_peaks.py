# difficulty: Hard
# topic: simulation
def erode_peaks(ridge: List[int]) -> List[int]:
    land = ridge[:]
    changed = True
    rounds = 0
    while changed and rounds < 20:
        changed = False
        nxt = land[:]
        for i in range(1, len(land) - 1):
            if land[i] > land[i - 1] and land[i] > land[i + 1]:
                nxt[i] = max(land[i - 1], land[i + 1])
                changed = True
            elif land[i] < land[i - 1] and land[i] < land[i + 1]:
                nxt[i] = land[i] + 1
                changed = True
        land = nxt
        rounds += 1
    return land
