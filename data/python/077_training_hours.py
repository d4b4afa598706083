# difficulty: Easy
# topic: simulation
def training_hours(foes: List[int], stamina: int) -> int:
    energy = abs(stamina) % 50 + 1
    hours = 0
    for f in foes:
        need = abs(f) % 60
        if energy <= need:
            hours += need + 1 - energy
            energy = need + 1
        energy -= need // 2
    return hours
