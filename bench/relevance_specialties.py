"""The relevance harness's own answer key for specialty words: lay term -> NUCC taxonomy codes.

Written from the NUCC code set (``nucc_taxonomy_251.csv``), independently of the service's
vocabulary file, so that the harness can disagree with it. A code matches a specialty when it
starts with one of the specialty's code prefixes (a full 10-character code is its own prefix).
``noun`` is what a patient types beside a name ("Nguyen cardiologist"); specialties without one
(e.g. "eye doctor", which covers ophthalmologists and optometrists) are asked on their own only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Specialty:
    key: str
    codes: tuple[str, ...]
    noun: str | None
    lay: tuple[str, ...]
    misspelt: tuple[str, ...]

    def covers(self, code: str) -> bool:
        return code.startswith(self.codes)


def _s(
    key: str, codes: str, noun: str | None, lay: tuple[str, ...], misspelt: tuple[str, ...]
) -> Specialty:
    return Specialty(key, tuple(codes.split()), noun, lay, misspelt)


# Order matters for ``specialty_of``: the first specialty with a noun that covers a code wins.
SPECIALTIES: tuple[Specialty, ...] = (
    _s(
        "cardiology",
        "207RC0000X 207RC0001X 207RI0011X 207RA0001X 207RA0002X 2080P0202X",
        "cardiologist",
        ("heart doctor", "heart specialist", "cardiologist", "cardiology", "cardio"),
        ("cardiolgist", "cardioligist", "cardiologyst", "kardiologist", "cardiolagist"),
    ),
    _s(
        "dermatology",
        "207N",
        "dermatologist",
        ("skin doctor", "skin specialist", "dermatologist", "derm"),
        ("dermatoligist", "dermatolgist", "dermotologist", "dermitologist", "dermatologyst"),
    ),
    _s(
        "ophthalmology",
        "207W",
        "ophthalmologist",
        ("eye surgeon", "ophthalmologist"),
        ("opthalmologist", "opthamologist", "ophthamologist", "ophtalmologist", "opthomologist"),
    ),
    _s(
        "optometry",
        "152W",
        "optometrist",
        ("optometrist",),
        ("optomitrist", "optometrest", "optamatrist"),
    ),
    _s("eye_care", "207W 152W", None, ("eye doctor", "eye specialist"), ("eye docter",)),
    _s(
        "ent",
        "207Y",
        "ENT doctor",
        ("ENT", "ENT doctor", "ear nose and throat doctor", "otolaryngologist"),
        ("otolaryngolgist", "otolaringologist", "otolarygologist", "ear nose and throat docter"),
    ),
    _s(
        "obgyn",
        "207V",
        "gynecologist",
        ("obgyn", "OB/GYN", "OB GYN", "women's doctor", "gynecologist", "obstetrician"),
        ("gynecolgist", "gynocologist", "obstetrican", "gynaecologist", "obgyne"),
    ),
    _s(
        "podiatry",
        "213E",
        "podiatrist",
        ("foot doctor", "foot specialist", "podiatrist"),
        ("podiatrst", "podiatirst", "podaitrist", "podiatris"),
    ),
    _s(
        "pediatrics",
        "2080",
        "pediatrician",
        ("kids doctor", "children's doctor", "child doctor", "baby doctor", "pediatrician", "peds"),
        ("pediatrican", "pediatritian", "peditrician", "paediatrician", "pedatrician"),
    ),
    _s(
        "orthopedics",
        "207X",
        "orthopedic surgeon",
        ("bone doctor", "orthopedic surgeon", "orthopedist", "ortho"),
        ("orthopaedist", "orthopedis", "orthopeadist", "orthopidist", "orthapedic surgeon"),
    ),
    _s(
        "psychiatry",
        "2084P0800X 2084P0802X 2084P0804X 2084P0805X 2084P0015X 2084F0202X",
        "psychiatrist",
        ("psychiatrist", "psychiatry"),
        ("psychiatrst", "phsychiatrist", "psyciatrist", "psychatrist"),
    ),
    _s(
        "neurology",
        "2084N 2084V 2084E",
        "neurologist",
        ("neurologist", "brain doctor", "nerve doctor"),
        ("nuerologist", "neurolgist", "neurologyst"),
    ),
    _s(
        "gastroenterology",
        "207RG0100X 2080P0206X",
        "gastroenterologist",
        ("stomach doctor", "GI doctor", "gastroenterologist"),
        ("gastroentrologist", "gastroenterolgist", "gastrointerologist"),
    ),
    _s("urology", "2088", "urologist", ("urologist",), ("urolgist", "uroligist", "eurologist")),
    _s(
        "dentistry",
        "1223",
        "dentist",
        ("dentist", "tooth doctor", "dental"),
        ("dentst", "dentis", "dentsit"),
    ),
    _s(
        "chiropractic",
        "111N",
        "chiropractor",
        ("chiropractor", "chiro"),
        ("chiropracter", "chiropracor", "chiroprator"),
    ),
    _s(
        "psychology",
        "103T",
        "psychologist",
        ("psychologist",),
        ("psycologist", "phsychologist", "pyschologist"),
    ),
    _s(
        "family_medicine",
        "207Q 208D",
        "family doctor",
        ("family doctor", "family physician", "general practitioner", "GP"),
        ("family phisician", "family docter", "famly doctor"),
    ),
    _s(
        "internal_medicine",
        "207R00000X",
        "internist",
        ("internist", "internal medicine doctor"),
        ("internest", "intenist"),
    ),
    _s(
        "nurse_practitioner",
        "363L",
        "nurse practitioner",
        ("nurse practitioner", "NP"),
        ("nurse practioner", "nurse practicioner", "nurse pracitioner"),
    ),
    _s(
        "physician_assistant",
        "363A",
        "physician assistant",
        ("physician assistant", "PA"),
        ("physician asistant", "physican assistant", "physicians assistent"),
    ),
    _s(
        "physical_therapy",
        "2251",
        "physical therapist",
        ("physical therapist", "PT", "physio"),
        ("physcial therapist", "pysical therapist", "physical theraphist"),
    ),
    _s(
        "counseling",
        "101Y",
        "counselor",
        ("counselor", "mental health counselor"),
        ("counsellor", "councelor", "counseler"),
    ),
    _s(
        "social_work",
        "1041",
        "social worker",
        ("social worker",),
        ("social wroker", "socal worker"),
    ),
    _s(
        "pharmacy", "1835", "pharmacist", ("pharmacist",), ("pharmasist", "pharmacyst", "farmacist")
    ),
    _s(
        "allergy",
        "207K 207RA0201X 2080P0201X",
        "allergist",
        ("allergist", "allergy doctor"),
        ("alergist", "allergest"),
    ),
    _s(
        "endocrinology",
        "207RE0101X 2080P0205X",
        "endocrinologist",
        ("endocrinologist", "diabetes doctor", "hormone doctor"),
        ("endocrinolgist", "endocronologist", "endochrinologist"),
    ),
    _s(
        "oncology",
        "207RX0202X 207RH0003X 2080P0207X 207VX0201X 2086X0206X",
        "oncologist",
        ("cancer doctor", "oncologist"),
        ("oncolgist", "onocologist", "oncologyst"),
    ),
    _s(
        "pulmonology",
        "207RP1001X 2080P0214X",
        "pulmonologist",
        ("lung doctor", "pulmonologist"),
        ("pulmonolgist", "pulmanologist", "pulmenologist"),
    ),
    _s(
        "nephrology",
        "207RN0300X 2080P0210X",
        "nephrologist",
        ("kidney doctor", "nephrologist"),
        ("nephrolgist", "nefrologist"),
    ),
    _s(
        "rheumatology",
        "207RR0500X 2080P0216X",
        "rheumatologist",
        ("rheumatologist", "arthritis doctor"),
        ("rhuematologist", "rheumatoligist", "rumatologist"),
    ),
    _s(
        "general_surgery",
        "2086",
        "general surgeon",
        ("general surgeon",),
        ("general surgen", "genral surgeon"),
    ),
)
BY_KEY: dict[str, Specialty] = {s.key: s for s in SPECIALTIES}


def specialty_of(code: str) -> Specialty | None:
    """The specialty (with a noun) a primary taxonomy code belongs to, if the table has it."""
    return next((s for s in SPECIALTIES if s.noun and s.covers(code)), None)
