"""LLM targets: agentv's own wire clients (openai, azure, anthropic, gemini), the litellm route,
prices, error classes, the retry layer and the response cache.
"""
