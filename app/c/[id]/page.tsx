import { ConversationView } from "@/components/chat/conversation-view";

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ConversationView key={id} id={id} />;
}
