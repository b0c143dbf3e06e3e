"""Explicit input and output serializers of the heist API (DESIGN.md section 5).

Output serializers render the dicts that selectors build, so the OpenAPI schema drf-spectacular
derives from them is the shape actually served (a test compares the two).
"""

from __future__ import annotations

from rest_framework import serializers

# --- Catalogue ------------------------------------------------------------------------------


class CrewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    cost = serializers.IntegerField()
    power = serializers.IntegerField()
    text = serializers.CharField()
    set = serializers.CharField()


class DifficultySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()


class RivalSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    tagline = serializers.CharField()
    deck = serializers.ListField(child=serializers.CharField(), help_text="12 crew slugs.")
    difficulties = DifficultySerializer(many=True)


class VaultModSerializer(serializers.Serializer):
    vault = serializers.CharField()
    nights = serializers.ListField(child=serializers.IntegerField())
    kind = serializers.ChoiceField(choices=["fixed", "raise", "double", "closed"])
    amount = serializers.IntegerField()


class StartHeatSerializer(serializers.Serializer):
    player = serializers.IntegerField(required=False)
    rival = serializers.IntegerField(required=False)


class ModifiersSerializer(serializers.Serializer):
    start_heat = StartHeatSerializer(help_text="Starting Heat per side, where not 0.")
    vault_mods = VaultModSerializer(many=True)


class EncounterSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    modifiers = ModifiersSerializer()


class DeckSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    deck = serializers.ListField(child=serializers.CharField(), help_text="12 crew slugs.")


class SavedDeckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    cards = serializers.ListField(child=serializers.CharField(), help_text="12 crew slugs.")
    ruleset = serializers.CharField(help_text="The ruleset the deck was legal under when saved.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SavedDeckInputSerializer(serializers.Serializer):
    # Bounds only: the name rule (1 to 40 characters once stripped) is deck_save's, with its
    # own code, deck_name_invalid; the deck rules are the engine's.
    name = serializers.CharField(max_length=200, allow_blank=True, help_text="1 to 40 characters.")
    cards = serializers.ListField(
        child=serializers.CharField(max_length=64), max_length=64, help_text="12 crew slugs."
    )


# --- Heist inputs ---------------------------------------------------------------------------

# The largest night number or card id an input may carry: far above any ruleset's, and small
# enough that no number a client sends is ever more than a comparison.
_ID_MAX = 1000


class HeistStartInputSerializer(serializers.Serializer):
    rival = serializers.CharField(max_length=64)
    difficulty = serializers.CharField(max_length=32)
    deck = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=64,
        help_text="12 crew slugs; the ready-made starter deck when left out.",
    )
    encounter = serializers.CharField(
        max_length=64, required=False, allow_null=True, allow_blank=True
    )
    client_seed = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        default="",
        help_text="Your part of the heist's seed (provably fair); any text up to 64 characters.",
    )


class CrewEntryInputSerializer(serializers.Serializer):
    # Bounds only (a card id is an index into a 12-card deck; the engine checks the hand).
    card = serializers.IntegerField(
        min_value=0, max_value=_ID_MAX, help_text="A card id from your hand."
    )
    vault = serializers.CharField(max_length=64)


class SealInputSerializer(serializers.Serializer):
    night = serializers.IntegerField(min_value=1, max_value=_ID_MAX)
    # Long lists are refused by the engine (too_many_crew); the cap only bounds the request.
    crew = CrewEntryInputSerializer(many=True, max_length=12)
    boost = serializers.BooleanField(default=False)


# --- Heist outputs --------------------------------------------------------------------------


class VaultViewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    loot = serializers.IntegerField(help_text="This night's loot (0 when closed or over).")
    closed = serializers.BooleanField()


class HandCardSerializer(serializers.Serializer):
    card = serializers.IntegerField(help_text="Stable while the card is in your hand.")
    crew = serializers.CharField()


class YouViewSerializer(serializers.Serializer):
    heat = serializers.IntegerField()
    energy = serializers.IntegerField()
    score = serializers.IntegerField()
    hand = HandCardSerializer(many=True)
    deck_count = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField())
    deck = serializers.ListField(child=serializers.CharField(), help_text="Your decklist.")


class RivalViewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    difficulty = serializers.CharField()
    heat = serializers.IntegerField()
    energy = serializers.IntegerField()
    score = serializers.IntegerField()
    hand_count = serializers.IntegerField()
    deck_count = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField())
    deck = serializers.ListField(child=serializers.CharField(), help_text="The rival's decklist.")
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 commitment to this night's sealed rival plan."
    )


class PowerPartSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="Power: base, boost, bonus. Heat: boost, quiet, effect.")
    amount = serializers.IntegerField()
    reason = serializers.CharField(
        allow_blank=True, help_text='"<crew slug>: <condition>" for an effect, else empty.'
    )


class NightYouCrewSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True, help_text="The terms that sum to power.")


class NightRivalCrewSerializer(serializers.Serializer):
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True, help_text="The terms that sum to power.")


class NightYouSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = NightYouCrewSerializer(many=True)


class NightRivalSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = NightRivalCrewSerializer(many=True)
    nonce = serializers.CharField(help_text="Revealed with the plan: 64 hex characters.")
    commitment = serializers.CharField()


class NightVaultSerializer(serializers.Serializer):
    slug = serializers.CharField()
    you_power = serializers.IntegerField()
    rival_power = serializers.IntegerField()
    winner = serializers.ChoiceField(choices=["you", "rival"], allow_null=True)
    loot = serializers.IntegerField()


class ScoreSerializer(serializers.Serializer):
    you = serializers.IntegerField()
    rival = serializers.IntegerField()


class NightResultSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    loot = serializers.DictField(child=serializers.IntegerField(), help_text="vault -> loot")
    you = NightYouSerializer()
    rival = NightRivalSerializer()
    vaults = NightVaultSerializer(many=True)
    score = ScoreSerializer()


class HeistResultSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["win", "loss", "draw"])
    you = serializers.IntegerField()
    rival = serializers.IntegerField()
    signs_awarded = serializers.IntegerField(allow_null=True)


class HeistViewSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    ruleset = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "finished", "abandoned"])
    night = serializers.IntegerField()
    nights = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=["rival_planning", "planning", "finished"])
    vaults = VaultViewSerializer(many=True)
    you = YouViewSerializer()
    rival = RivalViewSerializer()
    encounter = EncounterSerializer(allow_null=True)
    seed_commitment = serializers.CharField()
    history = NightResultSerializer(many=True)
    result = HeistResultSerializer(allow_null=True)


class SealOutputSerializer(serializers.Serializer):
    result = NightResultSerializer()
    heist = HeistViewSerializer()


# --- Replay (the engine's record format, game/engine/replay.py) -----------------------------


class PlanCrewSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    vault = serializers.CharField()


class PlanSerializer(serializers.Serializer):
    crew = PlanCrewSerializer(many=True)
    boost = serializers.BooleanField()


class ReplayPlansSerializer(serializers.Serializer):
    player = PlanSerializer()
    rival = PlanSerializer()


class EngineCrewResultSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True)


class EngineSideResultSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = EngineCrewResultSerializer(many=True)
    heat_parts = PowerPartSerializer(many=True)


class EngineVaultResultSerializer(serializers.Serializer):
    slug = serializers.CharField()
    player_power = serializers.IntegerField()
    rival_power = serializers.IntegerField()
    winner = serializers.ChoiceField(choices=["player", "rival"], allow_null=True)
    loot = serializers.IntegerField()
    closed = serializers.BooleanField()


class EngineScoreSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    rival = serializers.IntegerField()


class EngineNightResultSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    loot = serializers.DictField(child=serializers.IntegerField())
    closed = serializers.ListField(child=serializers.CharField())
    player = EngineSideResultSerializer()
    rival = EngineSideResultSerializer()
    vaults = EngineVaultResultSerializer(many=True)
    score = EngineScoreSerializer()


class ReplayNightSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    plans = ReplayPlansSerializer()
    rival_nonce = serializers.CharField()
    rival_commitment = serializers.CharField()
    result = EngineNightResultSerializer()


class ReplayDecksSerializer(serializers.Serializer):
    player = serializers.ListField(child=serializers.CharField())
    rival = serializers.ListField(child=serializers.CharField())


class EngineEncounterSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    start_heat = StartHeatSerializer()
    vault_mods = VaultModSerializer(many=True)


class ReplayRivalSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    difficulty = serializers.CharField()


class ReplaySerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    server_seed = serializers.CharField()
    client_seed = serializers.CharField(allow_blank=True, trim_whitespace=False)
    seed_commitment = serializers.CharField()
    decks = ReplayDecksSerializer()
    encounter = EngineEncounterSerializer(allow_null=True)
    nights = ReplayNightSerializer(many=True)
    outcome = serializers.ChoiceField(
        choices=["player", "rival"],
        allow_null=True,
        required=False,
        help_text="The engine's winner (null: a draw); absent for an abandoned heist.",
    )
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["finished", "abandoned"])
    rival = ReplayRivalSerializer()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    verify = serializers.CharField()

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # Absent, not null, for an abandoned heist: the verifier checks an outcome when the
        # key is present, and null means a draw.
        if "outcome" not in instance:
            data.pop("outcome", None)
        return data
