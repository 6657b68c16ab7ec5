"""A second development set for the real-model benchmark (issue 39), from public data no one
here wrote: 25 utterances of Synthetic-Persona-Chat (Jandaghi et al., 2023), with the facts a
person would write down, written by hand before any model was run on them.

Source: https://github.com/google-research-datasets/Synthetic-Persona-Chat, file
``data/Synthetic-Persona-Chat_valid.csv``, commit 1f367a0f05d388ca96ebbbc9e5752ab19ac76510
(2024-01-02); licence CC-BY 4.0 (the repository's README). The utterances are copied
verbatim. They were picked by a rule, not by hand: in the file's order, the turns ("User N:
...") of the "Best Generated Conversation" column that are 30 to 170 characters long, say
"my name is", "I live in", "I work as/at/for", "named", "my wife/husband/son/daughter/dog/
cat/brother/sister", "I am from", "I'm from", "years old", "I moved" or "my favo(u)rite X
is", hold a capitalised word past a sentence's start or a digit, hold no placeholder
("[", "(", "User"), no "you're"/"you are" and no question mark, and have not been seen
before: the first 25. The speakers are named in alphabetical order (the data set names none);
a speaker's name is not a fact of the text.

The facts are written as issue 39's other sets are (benchmarks/real_models/cases.py): what a
person would write down about the speaker; a snippet about someone the text does not name
("She's only 9 years old") states no fact a person could file. Their accepted keys are in
benchmarks/real_models/keys.py (``PUBLIC``). Only remember runs on this set (no tasks).
"""

from __future__ import annotations

from typing import Any

#: Where the snippets come from (docs/models.md, "Measured with real models").
SOURCE_REPOSITORY = "google-research-datasets/Synthetic-Persona-Chat"
SOURCE_PATH = "data/Synthetic-Persona-Chat_valid.csv"
SOURCE_COMMIT = "1f367a0f05d388ca96ebbbc9e5752ab19ac76510"
SOURCE_LICENCE = "CC-BY 4.0"

#: (speaker, text, facts a person would write down as (attribute words, value)).
SNIPPETS: list[tuple[str, str, list[tuple[str, Any]]]] = [
    ("human:ada", "Oh, those are both great breeds! I have a German Shepherd named Barnaby.",
     [("dog", "Barnaby"), ("dog breed", "German Shepherd")]),
    ("human:ben", "That's a tough question. I have a lot of favorite books, but I think my "
     'favorite one is "The Great Gatsby" by F. Scott Fitzgerald.',
     [("favourite book", "The Great Gatsby")]),
    ("human:cleo", 'My favorite book is "The Alchemist" by Paulo Coelho.',
     [("favourite book", "The Alchemist")]),
    ("human:dev", "She's a genius at math and science. She's only 9 years old, and she's "
     "already in the 11th grade.", []),
    ("human:eli", "I'm 40 years old. I work as a car salesman. I hate my job and my wife "
     "spends all my money. I'm planning on getting a divorce.",
     [("age", 40), ("job", "car salesman"), ("plan", "divorce")]),
    ("human:fay", "Hello, nice to meet you, my name is Jane.", [("name", "Jane")]),
    ("human:gus", "I think my favorite movie is The Empire Strikes Back.",
     [("favourite movie", "The Empire Strikes Back")]),
    ("human:hana", "My favorite movie is The Shawshank Redemption.",
     [("favourite movie", "The Shawshank Redemption")]),
    ("human:ivo", "My favorite book is The Alchemist.", [("favourite book", "The Alchemist")]),
    ("human:jai", "My favorite watch is my Rolex Submariner.",
     [("favourite watch", "Rolex Submariner")]),
    ("human:kim", "I think my favorite piece is Chopin's Nocturne in E-flat major.",
     [("favourite piece", "Nocturne in E-flat major")]),
    ("human:lou", "I work at the Museum of Natural History.",
     [("employer", "Museum of Natural History")]),
    ("human:mei", "I love the mountains too! I'm from Colorado, so I grew up spending a lot of "
     "time in the mountains.", [("from", "Colorado")]),
    ("human:ned", "My favorite game is The Witcher 3.", [("favourite game", "The Witcher 3")]),
    ("human:ola", "My favorite RPG is probably The Witcher 3.",
     [("favourite RPG", "The Witcher 3")]),
    ("human:pia", "That's interesting! I just turned 18 years old yesterday.", [("age", 18)]),
    ("human:quin", "Me too. Now I live in the United States.",
     [("country", "United States")]),
    ("human:rui", "Oh, cool! I have a German Shepherd named Barnaby.",
     [("dog", "Barnaby"), ("dog breed", "German Shepherd")]),
    ("human:sol", "I have a golden retriever named Bailey, a poodle named Charlie, and a "
     "chihuahua named Toby.", [("dog", "Bailey"), ("dog", "Charlie"), ("dog", "Toby")]),
    ("human:tess", "Oh cool! I'm from a little town called Springville.",
     [("hometown", "Springville")]),
    ("human:uma", "I like to go to the beach, I live in Alabama so it's always nice and sunny.",
     [("likes", "beach"), ("state", "Alabama")]),
    ("human:vik", "Oh nice! I love the beach too, I live in California so I'm lucky to be close "
     "to some amazing beaches.", [("likes", "beach"), ("state", "California")]),
    ("human:wren", "That sounds nice! I'm from California. It's a pretty different place.",
     [("from", "California")]),
    ("human:xia", "I can imagine! I'm from California, so I'm not used to the cold.",
     [("from", "California")]),
    ("human:yara", "Hi, I'm 100 years old, very strong, feel like I might live forever, "
     "remember when nobody had TV, and I love to drink wine and dance in the moonlight.",
     [("age", 100), ("likes", "wine"), ("likes", "dance")]),
]

#: No tasks: the agent's sets are cases.py's and heldout.py's.
BELIEFS: dict[str, Any] = {}
TASKS: list[tuple[str, Any]] = []
