# difficulty: Medium
# topic: dynamic-programming
def stair_patterns(n: int) -> int:
    top = abs(n) % 40 + 5
    memo = {0: 1}

    def ways(step):
        if step < 0:
            return 0
        if step in memo:
            return memo[step]
        total = (ways(step - 1) + ways(step - 3) + ways(step - 4)) % 1000003
        memo[step] = total
        return total

    return ways(top)
