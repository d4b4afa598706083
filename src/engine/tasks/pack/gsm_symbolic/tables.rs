//! The tables GSM-Symbolic templates sample from (`sample(names_female)`, `sample(multi_times)`). The templates name
//! them but do not define them; these are ours: the names and words are our own choice, and a numeric table's words
//! stand for the numbers they say ("twice" is 2, "a third" is 1/3 as a Python float).

use super::{Item, Num};

/// The tables we have, in the order errors list them.
pub const NAMES: [&str; 20] = [
    "names", "names_male", "names_female", "fruits", "colors", "cities", "weekdays", "currencies_sym", "sports", "weights_med", "weights_sm",
    "length_lg", "multi_times", "multiple_ice", "multiple", "fraction_alnum", "fraction_alph", "fractions", "fraction_nums", "fraction_decimals",
];

const MALE: &[&str] = &[
    "Arash", "Bruno", "Callum", "Dmitri", "Emeka", "Farid", "Gustavo", "Hiro", "Ivan", "Joaquin", "Kofi", "Lars", "Mateo", "Nikhil", "Olu", "Pavel",
    "Quentin", "Rafael", "Sami", "Tomasz", "Umar", "Viktor", "Wendell", "Xavier", "Yusuf", "Zane",
];
const FEMALE: &[&str] = &[
    "Adaeze", "Beatriz", "Camille", "Dalia", "Elif", "Freya", "Gulnara", "Hana", "Ingrid", "Jasmin", "Keiko", "Leila", "Marisol", "Noor", "Oksana",
    "Paloma", "Rosalind", "Signe", "Tamsin", "Ulla", "Valentina", "Wren", "Ximena", "Yara", "Zofia",
];

fn texts(words: &[&str]) -> Vec<Item> {
    words.iter().map(|w| Item::Text((*w).to_string())).collect()
}

fn numbers(pairs: &[(&str, f64)]) -> Vec<Item> {
    pairs
        .iter()
        .map(|(text, value)| {
            let value = if value.fract() == 0.0 { Num::Int(*value as i64) } else { Num::Float(*value) };
            Item::Number { text: (*text).to_string(), value }
        })
        .collect()
}

const TIMES: &[(&str, f64)] = &[
    ("twice", 2.0), ("three times", 3.0), ("four times", 4.0), ("five times", 5.0), ("six times", 6.0), ("seven times", 7.0), ("eight times", 8.0),
    ("nine times", 9.0), ("ten times", 10.0),
];
const PLES: &[(&str, f64)] = &[("double", 2.0), ("triple", 3.0), ("quadruple", 4.0), ("quintuple", 5.0)];
const WORD_FRACTIONS: &[(&str, f64)] = &[
    ("half", 1.0 / 2.0), ("one-third", 1.0 / 3.0), ("a third", 1.0 / 3.0), ("one-fourth", 1.0 / 4.0), ("a quarter", 1.0 / 4.0), ("one-fifth", 1.0 / 5.0),
    ("a fifth", 1.0 / 5.0), ("two-thirds", 2.0 / 3.0), ("three-fourths", 3.0 / 4.0), ("three-quarters", 3.0 / 4.0), ("two-fifths", 2.0 / 5.0), ("three-fifths", 3.0 / 5.0), ("four-fifths", 4.0 / 5.0), ("one-sixth", 1.0 / 6.0), ("a sixth", 1.0 / 6.0),
    ("one-eighth", 1.0 / 8.0), ("one-tenth", 1.0 / 10.0), ("a tenth", 1.0 / 10.0),
];
const SLASH_FRACTIONS: &[(&str, f64)] = &[
    ("1/2", 1.0 / 2.0), ("1/3", 1.0 / 3.0), ("1/4", 1.0 / 4.0), ("1/5", 1.0 / 5.0), ("2/3", 2.0 / 3.0), ("3/4", 3.0 / 4.0), ("2/5", 2.0 / 5.0),
    ("3/5", 3.0 / 5.0), ("1/6", 1.0 / 6.0), ("1/8", 1.0 / 8.0), ("3/8", 3.0 / 8.0), ("1/10", 1.0 / 10.0),
];
const DECIMALS: &[(&str, f64)] = &[("0.1", 0.1), ("0.125", 0.125), ("0.2", 0.2), ("0.25", 0.25), ("0.375", 0.375), ("0.4", 0.4), ("0.5", 0.5), ("0.6", 0.6), ("0.75", 0.75), ("0.8", 0.8)];

/// A table by name.
pub fn table(name: &str) -> Option<Vec<Item>> {
    Some(match name {
        "names" => texts(&[MALE, FEMALE].concat()),
        "names_male" => texts(MALE),
        "names_female" => texts(FEMALE),
        "fruits" => texts(&["plums", "apricots", "kiwis", "figs", "limes", "nectarines", "papayas", "guavas", "quinces", "lychees"]),
        "colors" => texts(&["teal", "crimson", "amber", "violet", "olive", "navy", "coral", "ivory", "maroon", "turquoise"]),
        "cities" => texts(&["Lagos", "Lisbon", "Osaka", "Quito", "Oslo", "Hanoi", "Nairobi", "Porto", "Krakow", "Montreal"]),
        "weekdays" => texts(&["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]),
        "currencies_sym" => texts(&["$", "€", "£"]),
        "sports" => texts(&["badminton", "handball", "water polo", "lacrosse", "fencing", "rowing", "curling", "netball"]),
        "weights_med" => texts(&["pound", "kilogram"]),
        "weights_sm" => texts(&["ounce", "gram"]),
        "length_lg" => texts(&["mile", "kilometer"]),
        "multi_times" => numbers(TIMES),
        "multiple_ice" => numbers(PLES),
        "multiple" => numbers(&[TIMES, PLES].concat()),
        "fraction_alnum" | "fraction_alph" => numbers(WORD_FRACTIONS),
        "fractions" | "fraction_nums" => numbers(SLASH_FRACTIONS),
        "fraction_decimals" => numbers(DECIMALS),
        _ => return None,
    })
}
