import { NewChatView } from "@/components/chat/new-chat-view";

export default function HomePage() {
  return <NewChatView />;
}
