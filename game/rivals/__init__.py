"""The computer rival. Imports the engine only; a policy sees an Observation, never the state."""
