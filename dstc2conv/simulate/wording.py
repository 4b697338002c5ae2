"""What the bot and the simulated user say in the bAbI dialog tasks 1-5: the published
strings, their quirks kept (``which price range are looking for``, ``an other option``)."""
from __future__ import annotations

SILENCE = "<SILENCE>"

# the bot's 12 fixed utterances, in the order the candidates file lists them
HELLO = "hello what can i help you with today"
ON_IT = "i'm on it"
ASK = ("any preference on a type of cuisine", "where should it be",
       "how many people would be in your party", "which price range are looking for")
LOOKING = "ok let me look into some options for you"
UPDATE_OK = "sure is there anything else to update"
ANOTHER = "sure let me find an other option for you"
BOOK = "great let me do the reservation"
ANYTHING_ELSE = "is there anything i can help you with"
WELCOME = "you're welcome"
FIXED = (HELLO, ON_IT, *ASK, LOOKING, UPDATE_OK, ANOTHER, BOOK, ANYTHING_ELSE, WELCOME)

PROPOSE = "what do you think of this option: "
HERE_IT_IS = "here it is "

# the fields of a request, in the order the bot asks for them and api_call gives them
FIELDS = ("cuisine", "location", "number", "price")
CUISINE, LOCATION, NUMBER, PRICE = range(4)

GREETINGS = ("hello", "hi", "good morning")
PREFIXES = ("can you book a table", "can you make a restaurant reservation", "i'd like to book a table",
            "may i have a table")
# a field as the opening request and an update say it ({} the value)
SLOT_PHRASES = (("with {} food", "with {} cuisine"), ("in {}",), ("for {}", "for {} people"),
                ("in a {} price range",))
# a field as the answer to the bot's question about it
ANSWERS = (("i love {} food", "with {} food", "with {} cuisine"), ("{} please", "in {}"),
           ("we will be {}", "for {} please", "for {} people please"),
           ("in a {} price range please", "i am looking for a {} restaurant"))
UPDATES = ("actually i would prefer", "instead could it be")
UPDATES_DONE = "no"
REJECTS = ("do you have something else", "no this does not work for me", "no i don't like that")
ACCEPTS = ("let's do it", "it's perfect", "i love that", "that looks great")
ASK_PHONE = ("do you have its phone number", "what is the phone number of the restaurant",
             "may i have the phone number of the restaurant")
ASK_ADDRESS = ("do you have its address", "can you provide the address", "may i have the address of the restaurant")
THANKS = ("thanks", "you rock", "thank you")
DECLINES = ("no thank you", "no thanks")


def api_call(request: tuple[str, str, str, str]) -> str:
    return "api_call " + " ".join(request)
