# difficulty: Hard
# topic: simulation
def colony_census(seed: List[int]) -> List[int]:
    alive = [1 if s > 0 else 0 for s in seed]
    n = len(alive)
    census = []
    for gen in range(6):
        nxt = []
        for i in range(n):
            left = alive[i - 1] if i > 0 else alive[n - 1]
            right = alive[(i + 1) % n]
            total = left + alive[i] + right
            nxt.append(1 if total == 2 or (total == 1 and alive[i] == 0) else 0)
        alive = nxt
        census.append(sum(i for i in range(n) if alive[i]) + gen)
    return census
