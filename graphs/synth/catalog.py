"""Word lists of the product catalogue: departments, categories, colours, materials, features."""

from __future__ import annotations

from graphs.synth.vocab import entries, words

UNITS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # unit -> (sentences for node text, clauses for questions); {v} is the value.
    "liters": (
        ("It holds {v} liters.", "Capacity: {v} liters.", "Offers {v} liters of space."),
        ("with a {v}-liter capacity", "that holds {v} liters", "with room for {v} liters"),
    ),
    "inches": (
        ("It measures {v} inches.", "Size: {v} inches.", "Its size is {v} inches."),
        ("that is {v} inches", "measuring {v} inches", "in the {v}-inch size"),
    ),
    "watts": (
        ("Rated at {v} watts.", "Power: {v} watts.", "Runs on {v} watts."),
        ("with {v} watts of power", "rated {v} watts", "that draws {v} watts"),
    ),
    "hours": (
        ("Battery life: {v} hours.", "Runs up to {v} hours per charge.", "Lasts {v} hours."),
        ("with {v} hours of battery", "lasting {v} hours on a charge", "that runs {v} hours"),
    ),
    "pieces": (
        ("Includes {v} pieces.", "A set of {v} pieces.", "Comes as a {v}-piece set."),
        ("with {v} pieces", "that comes as a {v}-piece set", "in a set of {v}"),
    ),
    "pounds": (
        ("Weighs {v} pounds.", "Weight: {v} pounds.", "Tips the scale at {v} pounds."),
        ("weighing {v} pounds", "at {v} pounds", "that weighs {v} pounds"),
    ),
}

# department -> (unit, value range, materials, features, [(category, kind noun)])
DEPARTMENTS: dict[
    str, tuple[str, tuple[int, int], tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]
] = {
    "Outdoor": (
        "liters",
        (8, 80),
        entries("ripstop nylon | canvas | polyester | aluminum"),
        words("waterproof lightweight foldable insulated reinforced breathable"),
        (
            ("Daypacks", "daypack"),
            ("Hiking Backpacks", "hiking backpack"),
            ("Tents", "tent"),
            ("Sleeping Bags", "sleeping bag"),
            ("Coolers", "cooler"),
            ("Dry Bags", "dry bag"),
        ),
    ),
    "Kitchen": (
        "inches",
        (4, 16),
        entries("stainless steel | cast iron | bamboo | ceramic | walnut wood"),
        words("dishwasher ergonomic stackable lightweight reinforced handcrafted"),
        (
            ("Chef Knives", "chef knife"),
            ("Skillets", "skillet"),
            ("Cutting Boards", "cutting board"),
            ("Mixing Bowls", "mixing bowl"),
            ("Saucepans", "saucepan"),
            ("Baking Sheets", "baking sheet"),
        ),
    ),
    "Audio": (
        "hours",
        (4, 60),
        entries("aluminum | polycarbonate | silicone | fabric mesh"),
        words("wireless rechargeable waterproof portable foldable magnetic"),
        (
            ("Headphones", "headphone set"),
            ("Earbuds", "earbud set"),
            ("Bluetooth Speakers", "speaker"),
            ("Radios", "radio"),
            ("Soundbars", "soundbar"),
        ),
    ),
    "Home": (
        "watts",
        (20, 2400),
        entries("polycarbonate | stainless steel | glass | oak wood | linen"),
        words("rechargeable portable modular adjustable washable ergonomic"),
        (
            ("Desk Lamps", "desk lamp"),
            ("Space Heaters", "space heater"),
            ("Air Purifiers", "air purifier"),
            ("Blenders", "blender"),
            ("Kettles", "kettle"),
            ("Fans", "fan"),
        ),
    ),
    "Fitness": (
        "pounds",
        (1, 60),
        entries("neoprene | cast iron | rubber | foam | cotton"),
        words("adjustable portable washable ergonomic reinforced breathable"),
        (
            ("Dumbbells", "dumbbell"),
            ("Yoga Mats", "yoga mat"),
            ("Kettlebells", "kettlebell"),
            ("Resistance Bands", "resistance band"),
            ("Jump Ropes", "jump rope"),
        ),
    ),
    "Office": (
        "pieces",
        (2, 48),
        entries("recycled paper | leather | aluminum | oak wood | felt"),
        words("ergonomic modular stackable magnetic handcrafted adjustable"),
        (
            ("Notebooks", "notebook"),
            ("Desk Organizers", "desk organizer"),
            ("Pen Sets", "pen set"),
            ("Monitor Stands", "monitor stand"),
            ("Planners", "planner"),
        ),
    ),
    "Pets": (
        "inches",
        (6, 48),
        entries("cotton | rubber | nylon webbing | felt | bamboo"),
        words("washable waterproof portable insulated foldable handcrafted"),
        (
            ("Dog Beds", "dog bed"),
            ("Cat Trees", "cat tree"),
            ("Leashes", "leash"),
            ("Pet Carriers", "pet carrier"),
            ("Feeding Bowls", "feeding bowl"),
        ),
    ),
    "Tools": (
        "pieces",
        (3, 120),
        entries("chrome vanadium | carbon fiber | aluminum | rubber | nylon webbing"),
        words("cordless rechargeable magnetic reinforced modular portable"),
        (
            ("Drill Sets", "drill set"),
            ("Wrench Sets", "wrench set"),
            ("Tool Bags", "tool bag"),
            ("Screwdriver Kits", "screwdriver kit"),
            ("Work Lights", "work light"),
        ),
    ),
}

# colour -> shade words (never another colour's name)
COLORS: dict[str, tuple[str, ...]] = {
    "red": words("crimson scarlet cherry"),
    "blue": words("cobalt navy sky"),
    "green": words("forest sage mint"),
    "black": words("jet matte onyx"),
    "white": words("ivory snow pearl"),
    "gray": words("charcoal slate graphite"),
    "yellow": words("mustard lemon sunflower"),
    "orange": words("tangerine burnt amber"),
    "purple": words("plum lavender violet"),
    "pink": words("rose blush coral"),
    "brown": words("chocolate walnut mocha"),
    "beige": words("sand oatmeal khaki"),
    "teal": words("lagoon peacock marine"),
    "olive": words("moss army drab"),
}

# feature keyword -> (word in node text, phrasings for description questions)
FEATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "waterproof": ("waterproof", ("that is waterproof", "that is fully waterproof")),
    "lightweight": ("lightweight", ("that is lightweight", "that is very lightweight")),
    "foldable": ("foldable", ("that folds flat", "that is foldable")),
    "insulated": ("insulated", ("that is insulated", "with insulated walls")),
    "reinforced": ("reinforced", ("with a reinforced build", "that is reinforced")),
    "breathable": ("breathable", ("that is breathable", "made to be breathable")),
    "dishwasher": ("dishwasher-safe", ("that can go in the dishwasher", "that is dishwasher safe")),
    "ergonomic": ("ergonomic", ("with an ergonomic design", "that is ergonomic")),
    "stackable": ("stackable", ("that is stackable", "that stacks neatly")),
    "handcrafted": ("handcrafted", ("that is handcrafted", "handcrafted by artisans")),
    "wireless": ("wireless", ("that is wireless", "with no wires")),
    "rechargeable": ("rechargeable", ("that is rechargeable", "with a rechargeable battery")),
    "portable": ("portable", ("that is portable", "that is easy to carry")),
    "magnetic": ("magnetic", ("with a magnetic mount", "that is magnetic")),
    "modular": ("modular", ("with a modular design", "that is modular")),
    "adjustable": ("adjustable", ("that is adjustable", "with adjustable settings")),
    "washable": ("machine-washable", ("that is machine washable", "that you can wash")),
    "cordless": ("cordless", ("that is cordless", "that runs cordless")),
}

SERIES = words(
    "Trail Summit Urban Classic Edge Flex Core Nova Aero Pro Max Ridge Terra Vista Prime"
)
FILLERS = entries(
    "A great pick for everyday use. | Backed by a two-year warranty. | Makes a thoughtful gift."
    " | Easy to clean and store. | Designed in-house and tested by our team."
    " | Ships in minimal packaging. | A customer favourite this season."
    " | Pairs well with the rest of the collection. | Simple to set up out of the box."
)
BRAND_KINDS = words("family-owned independent heritage boutique global start-up")
