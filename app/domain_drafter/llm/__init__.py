"""The models: llama.cpp in this process (one at a time and batched) and OpenAI-compatible servers behind one
backend protocol (backend.py, with Conversation for real chat turns), the factory, the model registry and
catalogue, download, the speed check, the app's shared model library (no Qt). May import core/ only.
"""
