"""Shared word lists for invented names: syllables, given names, surname parts, place parts."""

from __future__ import annotations


def words(text: str) -> tuple[str, ...]:
    """Split a whitespace-separated word list (lists are written as strings to stay compact)."""
    return tuple(text.split())


def entries(text: str) -> tuple[str, ...]:
    """Split a `|`-separated list of multi-word entries, trimming whitespace around each."""
    return tuple(part.strip() for part in text.split("|") if part.strip())


ONSETS = words("b br c ch cl d dr f fl g gr h j k kl kr l m n p pl pr qu r s sh st t tr v w z")
VOWELS = words("a e i o u a e i o a ai ea")
CODAS = words("n r l s x th nd rn st m v ck")

GIVEN_NAMES = words(
    "Amara Anton Beatriz Callum Chiara Dmitri Elena Emeka Farah Felix Greta Hana Hugo Ines Ivan"
    " Jana Jonas Kaito Karin Lars Leila Liam Lucia Mateo Maya Mira Nadia Niko Noor Oskar Petra"
    " Priya Rafael Rhea Ruben Sana Selma Soren Tara Tomas Uma Vera Viktor Yara Yusuf Zofia"
    " Adrian Bianca Cyrus Daria Elias Fiona Gideon Helena Idris Jasper Kira Lionel Marta Nils"
)
SURNAME_ROOTS = words(
    "Alder Bran Cal Dal Ester Fen Gar Hol Ives Kess Lind Mar Nord Orl Pell Quist Rad Sel Tor"
    " Ulv Vass Wex Yard Zel Brook Carr Dorn Elm Falk Gunn Hart Jarl Kov Lom Mend Novak Ost"
    " Prest Rask Strand Thal Varg Whit Arn Bel Corv Drax Eng Fros Hald Ivar Kalm Lund"
)
SURNAME_ENDS = words("ton berg ley ova ini sen ski ard well ez ovich mann ström ford ak ani ier")

PLACE_HEADS = words(
    "North South East West New Old Upper Lower Great Little High Fair Green Silver Stone Red"
)
PLACE_TAILS = words(
    "brook haven field ridge vale mouth port ford ton wick stead moor gate crest lake dale"
    " bridge marsh wood hollow"
)
