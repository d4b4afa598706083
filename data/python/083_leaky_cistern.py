# difficulty: Medium
# topic: simulation
def leaky_cistern(inflow: List[int]) -> int:
    level = 0
    spilled = 0
    for tick, amount in enumerate(inflow, 1):
        level += abs(amount)
        if level > 120:
            spilled += level - 120
            level = 120
        level -= 15 * (tick % 3 + 1)
        level = max(level, 0)
    return spilled * 2 + level
