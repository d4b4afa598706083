# difficulty: Easy
# topic: simulation
def direction_switches(path: List[int]) -> int:
    last = 0
    switches = 0
    for i in range(1, len(path)):
        step = path[i] - path[i - 1]
        if step == 0:
            continue
        sign = 1 if step > 0 else -1
        if last != 0 and sign != last:
            switches += i
        last = sign
    return switches
